/** build: the draft made from a detection is a template body the API accepts and the compiler compiles, whatever the
 * size of the page, with the source's page size and margins and each shape once. */
import { expect, test } from "bun:test";
import { buildDraft } from "../../../src/modules/template-conversions/build";
import { detect } from "../../../src/modules/template-conversions/detect";
import type { Extraction, Shape, TextRun } from "../../../src/modules/template-conversions/extract";
import { bodyProblems, CreateTemplateBody } from "../../../src/modules/templates/model";
import { compileTemplate } from "../../../src/render/compile/compile";

const run = (text: string, x: number, baseline: number): TextRun => ({
  page: 0, x, baseline, width: text.length * 4, fontSize: 8, fontFamily: "sans-serif", bold: false, italic: false, color: "#000000", ascent: 0.9, descent: -0.2, text,
});

test("a page of 1500 runs is split into containers of at most 1000 nodes, and the draft is a valid, compiling body", () => {
  const runs = Array.from({ length: 1500 }, (_, i) => run(`Word${i}`, 40 + (i % 10) * 50, 40 + Math.floor(i / 10) * 5));
  const rule: Shape = { page: 0, x: 40, y: 30, width: 500, height: 0.5, color: "#333333", paint: "fill", lineWidth: 0 };
  const source: Extraction = { pages: [{ width: 595, height: 842 }], runs, shapes: [rule, { ...rule }, { ...rule, color: "#ffffff", y: 20 }], images: [] };
  const { draft, sampleData } = buildDraft(source, detect(runs));
  const page = draft.content.type === "container" ? draft.content.children[0]! : null;
  expect(page?.type === "container" && page.children.map((c) => c.type === "container" && c.children.length)).toEqual([1000, 501]);
  // The rule once (painted twice), the white fill not at all.
  expect(JSON.stringify(draft).match(/backgroundColor/g)).toHaveLength(1);
  expect(draft.page).toEqual({ size: { width: "209.903mm", height: "297.039mm" }, margin: expect.any(Object) });
  expect(sampleData).toEqual({});
  expect(bodyProblems(CreateTemplateBody, { name: "Words", ...draft })).toEqual([]);
  expect(compileTemplate(draft)).toHaveProperty("ok");
});
