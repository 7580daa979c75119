import { describe, expect, test } from "bun:test";
import type { ErrorDetail } from "../../../src/errors";
import { compileTemplate } from "../../../src/render/compile/compile";
import type { CompositionNode, DataSchema, TemplateSource } from "../../../src/render/compile/model";

const schema: DataSchema = {
  type: "object",
  properties: {
    title: { type: "string" },
    customer: { type: "object", properties: { name: { type: "string" }, address: { type: "object", properties: { city: { type: "string" } } } } },
    items: { type: "array", items: { type: "object", properties: { name: { type: "string" }, price: { type: "number" } } } },
    count: { type: "number" },
    tags: { type: "array" },
  },
};

const text = (path: string[], scope?: "root" | "current"): CompositionNode => ({ type: "text", text: { path, scope } });

function problems(template: TemplateSource): ErrorDetail[] {
  const result = compileTemplate(template);
  return "problems" in result ? result.problems : [];
}

describe("compileTemplate: components", () => {
  test("a template that checks compiles", () => {
    const result = compileTemplate({
      content: { type: "container", children: [{ type: "component", componentId: "card", data: { path: ["customer"] } }] },
      components: { card: text(["name"]) },
      dataSchema: schema,
    });
    expect("ok" in result && result.ok.source.content.type).toBe("container");
  });

  test("an unknown component is reported at its componentId", () => {
    expect(
      problems({
        content: { type: "container", children: [text(["title"]), text(["title"]), { type: "component", componentId: "nope" }] },
      }),
    ).toEqual([{ path: "/content/children/2/componentId", message: 'unknown component "nope"' }]);
  });

  test("an unknown component inside a component is reported under /components", () => {
    expect(
      problems({
        content: { type: "component", componentId: "a" },
        components: { a: { type: "repeat", source: { path: ["items"] }, children: [], empty: [{ type: "component", componentId: "b" }] } },
      }),
    ).toEqual([{ path: "/components/a/empty/0/componentId", message: 'unknown component "b"' }]);
  });

  test("a cycle a → b → a is reported at the use that closes it", () => {
    expect(
      problems({
        content: { type: "component", componentId: "a" },
        components: {
          a: { type: "container", children: [{ type: "component", componentId: "b" }] },
          b: { type: "container", children: [text(["x"]), { type: "component", componentId: "a" }] },
        },
      }),
    ).toEqual([{ path: "/components/b/children/1/componentId", message: "component cycle: a → b → a" }]);
  });

  test("a component that uses itself, even unused, is a cycle", () => {
    expect(
      problems({
        content: text(["x"]),
        components: { self: { type: "repeat", source: { path: ["x"] }, children: [{ type: "component", componentId: "self" }] } },
      }),
    ).toEqual([{ path: "/components/self/children/0/componentId", message: "component cycle: self → self" }]);
  });

  test("a diamond (a uses b and c, both use d) is no cycle", () => {
    const use = (id: string): CompositionNode => ({ type: "component", componentId: id });
    expect(
      problems({
        content: use("a"),
        components: {
          a: { type: "container", children: [use("b"), use("c")] },
          b: use("d"),
          c: use("d"),
          d: text(["x"]),
        },
      }),
    ).toEqual([]);
  });
});

describe("compileTemplate: references against the data schema", () => {
  const cases: [string, TemplateSource, ErrorDetail[]][] = [
    ["a top-level reference", { content: text(["title"]), dataSchema: schema }, []],
    ["a misspelt top-level reference", { content: text(["titel"]), dataSchema: schema }, [
      { path: "/content/text/path", message: '["titel"] is not a property of the data schema' },
    ]],
    ["no data schema: nothing to check", { content: text(["anything"]) }, []],
    ["a nested path", { content: text(["customer", "address", "city"]), dataSchema: schema }, []],
    ["a path below a scalar", { content: text(["title", "x"]), dataSchema: schema }, [
      { path: "/content/text/path", message: '["title","x"] is not a property of the data schema' },
    ]],
    ["repeat items use the item schema", {
      content: { type: "repeat", source: { path: ["items"] }, children: [text(["price"]), text(["title"], "root"), text(["title"])] },
      dataSchema: schema,
    }, [{ path: "/content/children/2/text/path", message: '["title"] is not a property of the data schema' }]],
    ["repeat empty nodes use the outer scope", {
      content: { type: "repeat", source: { path: ["items"] }, children: [], empty: [text(["title"])] },
      dataSchema: schema,
    }, []],
    ["a repeat over a non-array", {
      content: { type: "repeat", source: { path: ["title"] }, children: [text(["nope"])] },
      dataSchema: schema,
    }, [{ path: "/content/source/path", message: "must point at an array in the data schema" }]],
    ["an array without items has no row properties", {
      content: { type: "repeat", source: { path: ["tags"] }, children: [text(["x"])] },
      dataSchema: schema,
    }, [{ path: "/content/children/0/text/path", message: '["x"] is not a property of the data schema' }]],
    ["an unknown source is one problem, not one per child", {
      content: { type: "repeat", source: { path: ["itemz"] }, children: [text(["a"]), text(["b"])] },
      dataSchema: schema,
    }, [{ path: "/content/source/path", message: '["itemz"] is not a property of the data schema' }]],
    ["table columns read the row", {
      content: {
        type: "table",
        source: { path: ["items"] },
        columns: [
          { id: "n", header: "Name", value: { path: ["name"] } },
          { id: "p", header: "Price", value: { parts: ["€", { path: ["prize"] }] } },
        ],
      },
      dataSchema: schema,
    }, [{ path: "/content/columns/1/value/parts/1/path", message: '["prize"] is not a property of the data schema' }]],
    ["a component reads its data", {
      content: { type: "component", componentId: "card", data: { path: ["customer"] } },
      components: { card: { type: "container", children: [text(["name"]), text(["title"])] } },
      dataSchema: schema,
    }, [{ path: "/components/card/children/1/text/path", message: '["title"] is not a property of the data schema' }]],
    ["a component without data reads the caller's current value", {
      content: { type: "repeat", source: { path: ["items"] }, children: [{ type: "component", componentId: "row" }] },
      components: { row: text(["price"]) },
      dataSchema: schema,
    }, []],
    ["a bad component data reference", {
      content: { type: "component", componentId: "card", data: { path: ["client"] } },
      components: { card: text(["name"]) },
      dataSchema: schema,
    }, [{ path: "/content/data/path", message: '["client"] is not a property of the data schema' }]],
    ["a component used from two places with different data", {
      content: {
        type: "container",
        children: [
          { type: "component", componentId: "label", data: { path: ["customer"] } },
          { type: "component", componentId: "label", data: { path: ["customer", "address"] } },
        ],
      },
      components: { label: text(["name"]) },
      dataSchema: schema,
    }, [{ path: "/components/label/text/path", message: '["name"] is not a property of the data schema' }]],
    ["an unused component is checked against the root", {
      content: text(["title"]),
      components: { spare: { type: "container", children: [text(["nope"], "root"), text(["unknown-current"])] } },
      dataSchema: schema,
    }, [{ path: "/components/spare/children/0/text/path", message: '["nope"] is not a property of the data schema' }]],
    ["visibleWhen paths", {
      content: { type: "text", text: "x", visibleWhen: { path: ["cnt"], operator: "truthy" } },
      dataSchema: schema,
    }, [{ path: "/content/visibleWhen/path", message: '["cnt"] is not a property of the data schema' }]],
    ["image assetId references", {
      content: { type: "image", assetId: { path: ["logo"] } },
      dataSchema: schema,
    }, [{ path: "/content/assetId/path", message: '["logo"] is not a property of the data schema' }]],
  ];
  test.each(cases)("%s", (_name, template, expected) => {
    expect(problems(template)).toEqual(expected);
  });
});

describe("compileTemplate: page values, formats, conditions and styles", () => {
  const page = (name: string) => ({ path: ["$page", name] });
  const cases: [string, TemplateSource, ErrorDetail[]][] = [
    ["page values in header and footer", {
      content: text(["title"]),
      header: { type: "text", text: { parts: ["Page ", page("number"), " of ", page("count")] } },
      footer: { type: "text", text: page("count") },
      dataSchema: schema,
    }, []],
    ["page values in a component used by the footer", {
      content: text(["title"]),
      footer: { type: "component", componentId: "pager" },
      components: { pager: { type: "text", text: page("number") } },
    }, []],
    ["page values in the content", { content: { type: "text", text: page("number") } }, [
      { path: "/content/text/path", message: "page values are only available in the header and footer" },
    ]],
    ["page values in a component used by the content", {
      content: { type: "component", componentId: "pager" },
      components: { pager: { type: "text", text: page("number") } },
    }, [{ path: "/components/pager/text/path", message: "page values are only available in the header and footer" }]],
    ["a class Chromium fills in the footer", { content: text(["x"]), footer: { type: "text", text: "Confidential", className: "legal title" } }, [
      { path: "/footer/className", message: "title is reserved in the header and footer (Chromium fills date, title, url, pageNumber and totalPages itself)" },
    ]],
    ["the same classes in the content are the template's own", { content: { type: "text", text: "x", className: "title date" } }, []],
    ["an unknown page value", { content: text(["x"]), header: { type: "text", text: page("total") } }, [
      { path: "/header/text/path", message: 'must be ["$page","number"] or ["$page","count"]' },
    ]],
    ["a page value as a repeat source", {
      content: text(["x"]),
      header: { type: "repeat", source: page("number"), children: [] },
    }, [{ path: "/header/source/path", message: "page values can only be shown as text" }]],
    ["a currency without a code", { content: { type: "text", text: { path: ["x"], format: { type: "currency" } } } }, [
      { path: "/content/text/format", message: "currency is required with format type currency" },
    ]],
    ["a time zone Intl does not know", { content: { type: "text", text: { path: ["x"], format: { type: "date", timeZone: "Mars/Olympus" } } } }, [
      { path: "/content/text/format", message: expect.stringContaining("Mars/Olympus") as unknown as string },
    ]],
    ["fraction digits the wrong way round", {
      content: { type: "text", text: { path: ["x"], format: { type: "number", minimumFractionDigits: 3, maximumFractionDigits: 1 } } },
    }, [{ path: "/content/text/format", message: expect.any(String) as unknown as string }]],
    ["a malformed locale", { content: { type: "text", text: { path: ["x"], format: { type: "number", locale: "not a locale" } } } }, [
      { path: "/content/text/format", message: expect.any(String) as unknown as string },
    ]],
    ["equals without a value", { content: { type: "text", text: "x", visibleWhen: { path: ["x"], operator: "equals" } } }, [
      { path: "/content/visibleWhen/value", message: "is required with operator equals" },
    ]],
    ["a style value that loads a URL", { content: { type: "text", text: "x", style: { backgroundImage: "url(https://evil.test/x)" } } }, [
      { path: "/content/style/backgroundImage", message: expect.stringContaining("url()") as unknown as string },
    ]],
    ["a style value that escapes its declaration", {
      content: { type: "table", source: { path: ["x"] }, columns: [{ id: "a", header: "", value: "", style: { color: "red;}</style>" } }] },
    }, [{ path: "/content/columns/0/style/color", message: "must not contain ; { } < > \\ or control characters" }]],
    ["a style key that is no property", { content: { type: "text", text: "x", style: { "co lor": "red" } } }, [
      { path: "/content/style/co lor", message: '"co lor" is not a CSS property name' },
    ]],
  ];
  test.each(cases)("%s", (_name, template, expected) => {
    expect(problems(template)).toEqual(expected);
  });
});
