/** docs/authoring.md is the one page a template author needs: every field and every named value of the template,
 * composition node, value, format, condition, page, data schema and document schemas appears on it (a field added to a
 * schema and not to the page fails here); and README.md and docs/ stand alone, citing no specification file their
 * readers do not have. The worked invoice is run as written by test/api/authoring.test.ts. */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { TSchema } from "@sinclair/typebox";
import { CreateTemplateBody, TemplateDraft } from "../../src/modules/templates/model";
import { CompositionNode, DocumentNode } from "../../src/render/compile/model";

const root = resolve(import.meta.dir, "../..");
const page = readFileSync(join(root, "docs/authoring.md"), "utf8");

// Fields whose own fields have pages of their own (docs/pdf.md, docs/destinations.md): named here, described there.
const ELSEWHERE = new Set(["pdf", "signature", "destinationIds"]);

/** namesOf collects the property names and the string constants (types, operators, formats…) of a schema, through
 * unions, arrays and maps, stopping at recursive references and at the fields documented elsewhere. */
function namesOf(schema: TSchema, out = new Set<string>(), seen = new Set<unknown>()): Set<string> {
  if (!schema || typeof schema !== "object" || seen.has(schema)) return out;
  seen.add(schema);
  if (typeof schema.const === "string") out.add(schema.const);
  for (const [name, property] of Object.entries<TSchema>(schema.properties ?? {})) {
    out.add(name);
    if (!ELSEWHERE.has(name)) namesOf(property, out, seen);
  }
  for (const branch of [...(schema.anyOf ?? []), schema.items, schema.additionalProperties, ...Object.values(schema.patternProperties ?? {})])
    if (branch && typeof branch === "object") namesOf(branch as TSchema, out, seen);
  return out;
}

describe("docs/authoring.md", () => {
  const names = [...namesOf(CreateTemplateBody), ...namesOf(TemplateDraft), ...namesOf(CompositionNode), ...namesOf(DocumentNode)];

  test("names every field and value of the template, node, value, format, condition, page, data schema and document schemas", () => {
    // The walk reached the depths: a format's dateStyle, a condition's operator, a page margin, a document attribute.
    expect(names).toEqual(expect.arrayContaining(["dateStyle", "notExists", "bottom", "attributes", "expression", "emptyText", "anyOf", "Letter", "rtl"]));
    const missing = [...new Set(names)].filter((name) => !page.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });

  test("has the worked invoice, and a section for each part of a template", () => {
    for (const heading of ["## A worked invoice", "## Composition nodes", "## Values", "### Formats", "## visibleWhen", "## Computed values", "## Styles", "## Tailwind classes (tw)", "## Page settings", "## Header and footer", "## Components", "## Assets", "## Data schema", "## Sample data", "## Starters", "## Documents", "### Documents and templates alike"])
      expect(page).toContain(`\n${heading}\n`);
  });
});

describe("README.md and docs/ stand alone", () => {
  const pages = ["README.md", ...readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md")).map((f) => join("docs", f))];

  test("no page cites the interface specification or the design notes, which readers do not have", () => {
    const citations = pages.flatMap((file) =>
      readFileSync(join(root, file), "utf8")
        .split("\n")
        .flatMap((line, i) => (/\bspec\b|spec's|\bspec [0-9]|interface-spec|DESIGN\.md|shared\//i.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(citations).toEqual([]);
  });
});
