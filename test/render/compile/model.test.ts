import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { CompositionNode, DataSchema, DocumentNode, PageSettings, TemplateSource } from "../../../src/render/compile/model";

const template = TypeCompiler.Compile(TemplateSource);
const dataSchema = TypeCompiler.Compile(DataSchema);
const node = TypeCompiler.Compile(CompositionNode);
const document = TypeCompiler.Compile(DocumentNode);
const page = TypeCompiler.Compile(PageSettings);

const ref = { path: ["a"] };
const text = (value: unknown) => ({ type: "text", text: value });
const long = (n: number) => "x".repeat(n);
const nodes = (n: number) => Array.from({ length: n }, () => text("x"));

describe("CompositionNode (spec 2.12)", () => {
  const cases: [string, unknown, boolean][] = [
    ["container", { type: "container", children: [text("a")] }, true],
    ["container without children", { type: "container" }, false],
    ["container with 1000 children", { type: "container", children: nodes(1000) }, true],
    ["container with 1001 children", { type: "container", children: nodes(1001) }, false],
    ["text literal string", text("hello"), true],
    ["text literal number", text(12.5), true],
    ["text literal boolean", text(true), true],
    ["text 100000 chars", text(long(100000)), true],
    ["text 100001 chars", text(long(100001)), false],
    ["text reference", text({ path: ["a", "b"], scope: "root", fallback: "-", prefix: "$", suffix: "!" }), true],
    ["text reference with an extra field", text({ path: ["a"], extra: 1 }), false],
    ["text reference empty path", text({ path: [] }), false],
    ["text reference 20 segments", text({ path: Array(20).fill("a") }), true],
    ["text reference 21 segments", text({ path: Array(21).fill("a") }), false],
    ["text reference empty segment", text({ path: [""] }), false],
    ["text reference 129-char segment", text({ path: [long(129)] }), false],
    ["text reference bad scope", text({ path: ["a"], scope: "parent" }), false],
    ["text reference prefix 1001", text({ path: ["a"], prefix: long(1001) }), false],
    ["text reference fallback object", text({ path: ["a"], fallback: {} }), false],
    ["format currency", text({ ...ref, format: { type: "currency", currency: "EUR", locale: "de-DE" } }), true],
    ["format lower-case currency", text({ ...ref, format: { type: "currency", currency: "eur" } }), false],
    ["format locale too short", text({ ...ref, format: { type: "number", locale: "d" } }), false],
    ["format fraction digits 21", text({ ...ref, format: { type: "number", maximumFractionDigits: 21 } }), false],
    ["format fraction digits 1.5", text({ ...ref, format: { type: "number", minimumFractionDigits: 1.5 } }), false],
    ["format date style", text({ ...ref, format: { type: "date", dateStyle: "full", timeZone: "Europe/Paris" } }), true],
    ["format bad date style", text({ ...ref, format: { type: "date", dateStyle: "tiny" } }), false],
    ["format unknown type", text({ ...ref, format: { type: "time" } }), false],
    ["parts", text({ parts: ["a", 1, true, ref] }), true],
    ["parts empty", text({ parts: [] }), false],
    ["parts 101", text({ parts: Array(101).fill("a") }), false],
    ["image with id", { type: "image", assetId: "ast_1", width: 10, height: 20 }, true],
    ["image with reference", { type: "image", assetId: ref }, true],
    ["image with a URL", { type: "image", assetId: "https://x/y.png" }, false],
    ["image width 0", { type: "image", assetId: "a", width: 0 }, false],
    ["repeat", { type: "repeat", source: ref, children: [text("a")], empty: [text("none")] }, true],
    ["repeat without children", { type: "repeat", source: ref }, false],
    ["table", { type: "table", source: ref, columns: [{ id: "c", header: "C", value: ref, width: 2000 }] }, true],
    ["table no columns", { type: "table", source: ref, columns: [] }, false],
    ["table 31 columns", { type: "table", source: ref, columns: Array(31).fill({ id: "c", header: "", value: "" }) }, false],
    ["table width 2001", { type: "table", source: ref, columns: [{ id: "c", header: "C", value: "", width: 2001 }] }, false],
    ["table column without header", { type: "table", source: ref, columns: [{ id: "c", value: "" }] }, false],
    ["table emptyText 10001", { type: "table", source: ref, columns: [{ id: "c", header: "", value: "" }], emptyText: long(10001) }, false],
    ["component", { type: "component", componentId: "card", data: ref }, true],
    ["component bad id", { type: "component", componentId: "-card" }, false],
    ["common fields", { ...text("a"), className: "x", style: { color: "red", width: 3 }, visibleWhen: { path: ["a"], operator: "truthy" } }, true],
    ["className 1001", { ...text("a"), className: long(1001) }, false],
    ["style object value", { ...text("a"), style: { color: {} } }, false],
    ["visibleWhen bad operator", { ...text("a"), visibleWhen: { path: ["a"], operator: "contains" } }, false],
    ["visibleWhen without path", { ...text("a"), visibleWhen: { operator: "exists" } }, false],
    ["unknown type", { type: "video" }, false],
    ["extra field", { ...text("a"), onclick: "x" }, false],
  ];
  test.each(cases)("%s", (_name, value, valid) => {
    expect(node.Check(value)).toBe(valid);
  });
});

describe("DataSchema", () => {
  const cases: [string, unknown, boolean][] = [
    ["nested", { type: "object", properties: { a: { type: ["string", "null"] }, b: { items: { const: "x" } } }, required: ["a"] }, true],
    ["anyOf", { anyOf: [{ type: "string" }, { type: "number" }] }, true],
    ["integer is not a type", { type: "integer" }, false],
    ["const number", { const: 1 }, false],
    ["extra keyword", { type: "string", minLength: 1 }, false],
    ["extra keyword deep", { properties: { a: { format: "email" } } }, false],
  ];
  test.each(cases)("%s", (_name, value, valid) => {
    expect(dataSchema.Check(value)).toBe(valid);
  });
});

describe("DocumentNode", () => {
  const cases: [string, unknown, boolean][] = [
    ["container", { type: "container", tagName: "section", dir: "rtl", attributes: { title: "t" }, tw: "p-4", preset: { margin: 0 } }, true],
    ["container without children", { type: "container" }, true],
    ["text without text", { type: "text" }, false],
    ["image", { type: "image", src: "ast_1", width: 1 }, true],
    ["image src empty", { type: "image", src: "" }, false],
    ["image src 2049", { type: "image", src: long(2049) }, false],
    ["dir up", { type: "text", text: "a", dir: "up" }, false],
    ["attribute number", { type: "text", text: "a", attributes: { colspan: 2 } }, false],
  ];
  test.each(cases)("%s", (_name, value, valid) => {
    expect(document.Check(value)).toBe(valid);
  });
});

describe("PageSettings and TemplateSource", () => {
  const cases: [string, unknown, boolean][] = [
    ["named size", { size: "A4", orientation: "landscape", margin: { top: "10mm", left: "0.5in" } }, true],
    ["custom size", { size: { width: "210mm", height: "297mm" } }, true],
    ["size as number", { size: { width: 210, height: 297 } }, false],
    ["length without unit", { margin: { top: "10" } }, false],
    ["length with CSS injection", { margin: { top: "1mm;}body{color:red" } }, false],
    ["unknown size", { size: "B5" }, false],
  ];
  test.each(cases)("page: %s", (_name, value, valid) => {
    expect(page.Check(value)).toBe(valid);
  });

  test("a full template, and one with a component key that is no Identifier", () => {
    const content = { type: "component", componentId: "card" };
    const components = { card: { type: "text", text: "x" } };
    expect(template.Check({ content, components, header: text("h"), footer: text("f"), stylesheet: "p{}", page: { size: "A5" } })).toBe(true);
    expect(template.Check({ content, components: { "bad key": components.card } })).toBe(false);
    expect(template.Check({ content, name: "extra" })).toBe(false);
  });
});
