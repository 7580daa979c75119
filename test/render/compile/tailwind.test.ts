/** Tailwind classes (`tw`): UnoCSS's Tailwind 3 preset writes the CSS of the classes a document uses — colour,
 * spacing, typography, borders, sizes, flex and grid — and names the ones that make none; in templates and documents. */
import { describe, expect, spyOn, test } from "bun:test";
import { compileTemplate, renderDocumentHtml, renderTemplate } from "../../../src/render/compile/compile";
import * as tailwind from "../../../src/render/compile/tailwind";
import { templateJob } from "../../../src/render/job";
import type { TemplateSource } from "../../../src/render/compile/model";

const { tailwindCss } = tailwind;
import { options } from "./helpers";

describe("tailwindCss", () => {
  test.each([
    ["text-2xl", ".text-2xl{font-size:1.5rem;line-height:2rem;}"],
    ["font-bold", ".font-bold{font-weight:700;}"],
    ["text-blue-700", "color:rgb(29 78 216"],
    ["p-4", ".p-4{padding:1rem;}"],
    ["mt-2", ".mt-2{margin-top:0.5rem;}"],
    ["border", ".border{border-width:1px;}"],
    ["border-gray-300", "border-color:rgb(209 213 219"],
    ["w-1/2", ".w-1\\/2{width:50%;}"],
    ["h-10", ".h-10{height:2.5rem;}"],
    ["flex", ".flex{display:flex;}"],
    ["justify-between", ".justify-between{justify-content:space-between;}"],
    ["grid", ".grid{display:grid;}"],
    ["grid-cols-3", ".grid-cols-3{grid-template-columns:repeat(3,minmax(0,1fr));}"],
    ["text-[13px]", "font-size:13px"],
  ])("%s", async (name, css) => {
    const out = await tailwindCss([name]);
    expect(out.css).toContain(css);
    expect(out.unknown).toEqual([]);
  });

  test("a class that makes no CSS, or loads a resource, is unknown; the others still work", async () => {
    const out = await tailwindCss(["font-bold", "text-bluish-700", "bg-[url(https://evil.test/x.png)]", "title"]);
    expect(out.css).toContain(".font-bold{");
    expect(out.css).not.toContain("evil.test");
    expect(out.unknown).toEqual(["text-bluish-700", "bg-[url(https://evil.test/x.png)]", "title"]);
  });

  test("the preflight's variables come only with utilities that read them", async () => {
    expect((await tailwindCss(["p-4"])).css).not.toContain("--un-ring-shadow:");
    expect((await tailwindCss(["shadow-md"])).css).toContain("--un-ring-shadow:");
  });
});

describe("tw on nodes", () => {
  test("a template: classes on every node type, CSS after the stylesheet, unknown ones with the pointer of their first use", async () => {
    const compiled = compileTemplate({
      stylesheet: ".x{color:red}",
      content: {
        type: "container",
        tw: "p-4 flex",
        children: [
          { type: "text", text: "T", tw: "text-2xl nope-1", className: "x" },
          { type: "table", source: { path: ["rows"] }, tw: "w-full nope-1", columns: [{ id: "a", header: "A", value: "a" }] },
        ],
      },
      footer: { type: "text", text: "f", tw: "text-xs nope-2" },
    });
    if ("problems" in compiled) throw new Error(JSON.stringify(compiled.problems));
    const rendered = await renderTemplate(compiled.ok, { rows: [] }, options);
    expect(rendered.html).toContain('<div class="p-4 flex"><div class="x text-2xl nope-1">T</div><table class="w-full nope-1">');
    expect(rendered.html.indexOf(".x{color:red}")).toBeLessThan(rendered.html.indexOf(".text-2xl{"));
    expect(rendered.footer).toContain(".text-xs{");
    expect(rendered.unknownClasses).toEqual([
      { className: "nope-1", path: "/content/children/0/tw" },
      { className: "nope-2", path: "/footer/tw" },
    ]);
  });

  test("a saved template's CSS is generated once, not at each render (each render copies the compiled template)", async () => {
    const source: TemplateSource = { content: { type: "text", text: "T", tw: "p-4 text-2xl" } };
    const generated = spyOn(tailwind, "tailwindCss");
    try {
      const jobs = [await templateJob({ source, assetIds: [] }, {}, () => null), await templateJob({ source, assetIds: [] }, {}, () => null)];
      expect(jobs.map((job) => job.html.includes(".text-2xl{"))).toEqual([true, true]);
      expect(generated).toHaveBeenCalledTimes(1);
    } finally {
      generated.mockRestore();
    }
  });

  test("a template's header or footer refuses the classes Chromium fills in, in tw too", () => {
    const compiled = compileTemplate({ content: { type: "text", text: "x" }, footer: { type: "text", text: "f", tw: "pageNumber" } });
    expect("problems" in compiled && compiled.problems.map((p) => p.path)).toEqual(["/footer/tw"]);
  });

  test("a document: CSS for its classes, unknown ones with their pointers", async () => {
    const result = await renderDocumentHtml(
      { type: "container", tw: "flex gap-2", children: [{ type: "text", text: "Invoice", tw: "text-2xl font-bold text-blue-700 huge" }] },
      options,
    );
    if ("problems" in result) throw new Error(JSON.stringify(result.problems));
    expect(result.ok.html).toContain(".text-blue-700{");
    expect(result.ok.html).toContain('<span class="text-2xl font-bold text-blue-700 huge">Invoice</span>');
    expect(result.ok.unknownClasses).toEqual([{ className: "huge", path: "/children/0/tw" }]);
  });
});

test("the elements that carry a class get Tailwind's box model and border reset, at no specificity; the others keep the browser's", async () => {
  const out = await tailwindCss(["border-b-2", "w-1/2", "unknown-1"]);
  expect(out.css).toContain(":where(.border-b-2,.w-1\\/2){box-sizing:border-box;border-width:0;border-style:solid;border-color:#e5e7eb}");
  expect(out.css).toContain(":where(hr):where(.border-b-2,.w-1\\/2){border-top-width:1px}");
  expect((await tailwindCss([])).css).toBe("");
});
