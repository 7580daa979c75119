/**
 * bench/tailwind: what Tailwind classes (`tw`) cost per invoice, in process, no browser — docs/authoring.md's worked
 * invoice (its template, read from the page) and the same classes on a document. Prints the median over alternating
 * blocks of: generating the CSS of the invoice's warm class set (the goal: ≤ 2 ms per invoice), a document invoice's
 * whole HTML, and the template's HTML as a draft (compiled and generated each time) and as a published version
 * (compiled once, its CSS cached).
 *
 *   bun bench/tailwind.ts [invoices per block = 200] [blocks = 5]
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { compileTemplate, renderDocumentHtml, renderTemplate } from "../src/render/compile/compile";
import type { DocumentNode, TemplateSource } from "../src/render/compile/model";
import { tailwindCss, twClasses } from "../src/render/compile/tailwind";

const n = Number(process.argv[2] ?? 200);
const blocks = Number(process.argv[3] ?? 5);
const GOAL_MS = 2;

const page = readFileSync(resolve(import.meta.dir, "../docs/authoring.md"), "utf8");
const json = /cat > invoice\.json <<'EOF'\n([\s\S]*?)\nEOF/.exec(page)?.[1];
if (!json) throw new Error("docs/authoring.md has no worked invoice (cat > invoice.json <<'EOF')");
const { name: _, description: __, sampleData, ...source } = JSON.parse(json.replace("LOGO_ID", "ast_logo")) as TemplateSource & { name: string; description: string; sampleData: unknown };

// Every tw of the template, in order, and the same classes on a document of one node per class string.
const twOf = (node: unknown): string[] => {
  if (!node || typeof node !== "object") return [];
  const own = typeof (node as { tw?: unknown }).tw === "string" ? [(node as { tw: string }).tw] : [];
  return [...own, ...Object.values(node).flatMap(twOf)];
};
const tws = [...twOf(source.content), ...twOf(source.footer)];
const classes = tws.flatMap(twClasses);
const document: DocumentNode = { type: "container", children: tws.map((tw, i) => ({ type: "text", tagName: "div", text: `line ${i}`, tw })) };
const options = { assetUrl: (id: string) => `https://assets.renderd.invalid/${id}` };
const published = compileTemplate(source);
if ("problems" in published) throw new Error(JSON.stringify(published.problems));

const cases: Record<string, () => Promise<unknown>> = {
  "tw CSS of the warm class set": () => tailwindCss(classes),
  "document invoice, whole HTML": () => renderDocumentHtml(document, options),
  "template invoice as a draft": async () => {
    const draft = compileTemplate(structuredClone(source));
    if ("problems" in draft) throw new Error("does not compile");
    return renderTemplate(draft.ok, sampleData, options);
  },
  "template invoice, published": () => renderTemplate(published.ok, sampleData, options),
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const run of Object.values(cases)) for (let i = 0; i < 50; i++) await run();
const perBlock: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let block = 0; block < blocks; block++)
  for (const [name, run] of Object.entries(cases)) {
    const started = performance.now();
    for (let i = 0; i < n; i++) await run();
    perBlock[name]!.push((performance.now() - started) / n);
  }

console.log(`tw: docs/authoring.md's invoice, ${tws.length} tw values, ${new Set(classes).size} classes; ${n} invoices × ${blocks} blocks, median of the blocks`);
for (const [name, ms] of Object.entries(perBlock)) console.log(`  ${name.padEnd(30)} ${median(ms).toFixed(3)} ms per invoice   (blocks ${ms.map((m) => m.toFixed(3)).join(", ")})`);
const warm = median(perBlock["tw CSS of the warm class set"]!);
console.log(`goal: the warm class set ≤ ${GOAL_MS} ms per invoice — ${warm <= GOAL_MS ? "met" : "NOT met"} (${warm.toFixed(3)} ms)`);
