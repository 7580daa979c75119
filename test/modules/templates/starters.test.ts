/** The starters are complete drafts that teach: each compiles, its sample data fits its data schema, every class its
 * content names is defined in its stylesheet or is a Tailwind class, and it has page settings and a styled footer. The
 * invoice starter has the shape the issue asks for. (Their PDFs are checked in test/api/authoring.test.ts.) */
import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { STARTER_IDS, TemplateDraft } from "../../../src/modules/templates/model";
import { templateStarters } from "../../../src/modules/templates/starters";
import { compileTemplate } from "../../../src/render/compile/compile";
import { validateData } from "../../../src/render/compile/data";
import type { CompositionNode, TemplateSource } from "../../../src/render/compile/model";
import { tailwindCss, twClasses } from "../../../src/render/compile/tailwind";

const draft = TypeCompiler.Compile(TemplateDraft);

/** nodes lists every node of a starter: content, header, footer and components, depth first. */
function nodes(source: TemplateSource): CompositionNode[] {
  const out: CompositionNode[] = [];
  const visit = (node: CompositionNode) => {
    out.push(node);
    if (node.type === "container" || node.type === "repeat") node.children.forEach(visit);
    if (node.type === "repeat") node.empty?.forEach(visit);
  };
  for (const root of [source.content, source.header, source.footer, ...Object.values(source.components ?? {})]) if (root) visit(root);
  return out;
}

test("there are the five starters, in the order the console offers them", () => {
  expect(templateStarters().map((s) => s.id)).toEqual([...STARTER_IDS]);
  expect(STARTER_IDS).toEqual(["invoice", "receipt", "letter", "report", "certificate"]);
});

describe.each(templateStarters().map((s) => [s.id, s] as const))("%s", (_id, starter) => {
  const { source } = starter;

  test("is a complete draft: content, data schema, sample data, stylesheet, page and footer", () => {
    expect(draft.Check(source)).toBe(true);
    for (const field of ["content", "dataSchema", "sampleData", "stylesheet", "page", "footer"] as const) expect({ field, present: source[field] !== undefined }).toEqual({ field, present: true });
    expect(starter.name.length).toBeGreaterThan(0);
    expect(starter.description.length).toBeGreaterThan(20);
  });

  test("compiles, and its sample data fits its data schema", () => {
    const compiled = compileTemplate(source);
    expect("problems" in compiled ? compiled.problems : []).toEqual([]);
    expect(validateData(source.dataSchema!, source.sampleData)).toEqual([]);
  });

  test("every class its nodes name is defined in its stylesheet, every tw class is a Tailwind class", async () => {
    const classNames = new Set(nodes(source).flatMap((node) => (node.className ?? "").split(/\s+/).filter(Boolean)));
    const undefinedClasses = [...classNames].filter((name) => !new RegExp(`\\.${name}(?![\\w-])`).test(source.stylesheet!));
    expect(undefinedClasses).toEqual([]);
    const tw = nodes(source).flatMap((node) => twClasses(node.tw));
    expect((await tailwindCss(tw)).unknown).toEqual([]);
  });

  test("its footer is styled by a class of the stylesheet, and spans the page inside its own padding", () => {
    const footer = source.footer!;
    expect(footer.className).toBe("footer");
    expect(source.stylesheet).toMatch(/\.footer \{ box-sizing: border-box;/);
  });
});

test("the invoice starter: number, customer.name and lines of description, quantity and price; a text node Invoice; a table of lines", () => {
  const invoice = templateStarters().find((s) => s.id === "invoice")!.source;
  const schema = invoice.dataSchema!;
  expect(schema.properties?.number).toEqual({ type: "string" });
  expect(schema.properties?.customer?.properties?.name).toEqual({ type: "string" });
  expect(Object.keys(schema.properties?.lines?.items?.properties ?? {})).toEqual(["description", "quantity", "price"]);
  const all = nodes(invoice);
  expect(all).toContainEqual({ type: "text", text: "Invoice", className: "title" });
  const table = all.find((node) => node.type === "table");
  expect(table?.type === "table" && table.source).toEqual({ path: ["lines"] });
});
