import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/errors";
import type { CompositionNode, ValueFormat, ValueReference, VisibleWhen } from "../../../src/render/compile/model";
import { body, compiled, count, options, renderFooterHtml, renderHeaderHtml, renderHtml } from "./helpers";

const text = (value: ValueReference | string | number | boolean | { parts: (ValueReference | string | number)[] }): CompositionNode => ({
  type: "text",
  text: value,
});

// Intl separates amounts and units with no-break spaces; the tests write them as plain spaces.
const plain = (html: string) => html.replace(/[\u00a0\u202f]/g, " ");

describe("node types", () => {
  test("container: a div around its children, with class and style", async () => {
    const html = await body({ type: "container", className: "box", style: { padding: 4 }, children: [text("a"), text("b")] }, {});
    expect(html).toBe('<div class="box" style="padding:4px"><div>a</div><div>b</div></div>');
  });

  test("text: literals of each kind", async () => {
    expect(await body({ type: "container", children: [text("s"), text(1.5), text(false)] }, {})).toBe(
      "<div><div>s</div><div>1.5</div><div>false</div></div>",
    );
  });

  test("image: an asset id becomes the asset URL with its size", async () => {
    expect(await body({ type: "image", assetId: "ast_logo", width: 120, height: 40, className: "logo" }, {})).toBe(
      '<img class="logo" src="https://assets.renderd.invalid/ast_logo" width="120" height="40" alt="">',
    );
  });

  test("image: an asset id from data", async () => {
    expect(await body({ type: "image", assetId: { path: ["logo"] } }, { logo: "ast_2" })).toContain('src="https://assets.renderd.invalid/ast_2"');
  });

  test.each([
    ["a URL", "https://evil.test/x.png"],
    ["a path", "../../etc/passwd"],
    ["markup", '"><script>alert(1)</script>'],
    ["an object", { id: "ast_1" }],
    ["nothing", undefined],
  ])("image: an asset id from data that is %s renders nothing", async (_name, logo) => {
    expect(await body({ type: "image", assetId: { path: ["logo"] } }, { logo })).toBe("");
  });

  test("repeat: children once per item, in the item's scope", async () => {
    const node: CompositionNode = { type: "repeat", source: { path: ["items"] }, children: [text({ path: ["name"] })], empty: [text("none")] };
    expect(await body(node, { items: [{ name: "a" }, { name: "b" }] })).toBe("<div><div>a</div><div>b</div></div>");
  });

  test.each([
    ["empty", { items: [] }],
    ["missing", {}],
    ["not an array", { items: { name: "a" } }],
  ])("repeat: the empty nodes when the source is %s", async (_name, data) => {
    const node: CompositionNode = { type: "repeat", source: { path: ["items"] }, children: [text("item")], empty: [text("none")] };
    expect(await body(node, data)).toBe("<div><div>none</div></div>");
  });

  test("repeat: nested repeats, and root scope inside", async () => {
    const node: CompositionNode = {
      type: "repeat",
      source: { path: ["groups"] },
      children: [
        { type: "repeat", source: { path: ["rows"] }, children: [text({ parts: [{ path: ["title"], scope: "root" }, ":", { path: ["v"] }] })] },
      ],
    };
    const html = await body(node, { title: "T", groups: [{ rows: [{ v: 1 }, { v: 2 }] }, { rows: [{ v: 3 }] }] });
    expect(html).toBe("<div><div><div>T:1</div><div>T:2</div></div><div><div>T:3</div></div></div>");
  });

  test("component: its tree with `data` as the current value", async () => {
    const html = await body({ type: "component", componentId: "card", data: { path: ["customer"] }, className: "c" }, { customer: { name: "Ada" } }, {
      components: { card: text({ path: ["name"], prefix: "Dear " }) },
    });
    expect(html).toBe('<div class="c"><div>Dear Ada</div></div>');
  });

  test("component: without data it reads the caller's current value", async () => {
    const node: CompositionNode = { type: "repeat", source: { path: ["items"] }, children: [{ type: "component", componentId: "row" }] };
    const html = await body(node, { items: [{ n: 1 }, { n: 2 }] }, { components: { row: text({ path: ["n"] }) } });
    expect(html).toBe("<div><div><div>1</div></div><div><div>2</div></div></div>");
  });
});

describe("table", () => {
  const table = (extra: Partial<Extract<CompositionNode, { type: "table" }>> = {}): CompositionNode => ({
    type: "table",
    source: { path: ["items"] },
    columns: [
      { id: "name", header: "Name", value: { path: ["name"] }, width: 200 },
      { id: "price", header: "Price", value: { path: ["price"], format: { type: "number", minimumFractionDigits: 2 } }, style: { textAlign: "right" } },
    ],
    ...extra,
  });
  const data = { items: [{ name: "Tea", price: 3 }, { name: "Cake", price: 4.5 }] };

  test("head, widths, rows and column styles", async () => {
    const html = await body(table({ headerStyle: { fontWeight: 700 }, cellStyle: { padding: 2 } }), data);
    expect(html).toBe(
      "<table>" +
        '<colgroup><col style="width:200px"><col></colgroup>' +
        '<thead><tr><th style="font-weight:700">Name</th><th style="font-weight:700;text-align:right">Price</th></tr></thead>' +
        "<tbody>" +
        '<tr><td style="padding:2px">Tea</td><td style="padding:2px;text-align:right">3.00</td></tr>' +
        '<tr><td style="padding:2px">Cake</td><td style="padding:2px;text-align:right">4.50</td></tr>' +
        "</tbody></table>",
    );
  });

  test("no colgroup without widths", async () => {
    const node = table();
    if (node.type === "table") node.columns = node.columns.map(({ width: _width, ...column }) => column);
    expect(await body(node, data)).not.toContain("<col");
  });

  test("showHeader false leaves the head out", async () => {
    const html = await body(table({ showHeader: false }), data);
    expect(html).not.toContain("<thead>");
    expect(count(html, "<tr>")).toBe(2);
  });

  test("emptyText spans every column when there are no rows", async () => {
    expect(await body(table({ emptyText: "No items", cellStyle: { color: "gray" } }), { items: [] })).toContain(
      '<tbody><tr><td colspan="2" style="color:gray">No items</td></tr></tbody>',
    );
  });

  test("no rows and no emptyText: an empty body", async () => {
    expect(await body(table(), {})).toContain("<tbody></tbody>");
  });
});

describe("visibleWhen", () => {
  const data = { yes: true, no: false, zero: 0, text: "a", empty: "", list: [1], none: [], nil: null, n: 5, nested: { on: true } };
  const cases: [string, VisibleWhen, boolean][] = [
    ["truthy true", { path: ["yes"], operator: "truthy" }, true],
    ["truthy false", { path: ["no"], operator: "truthy" }, false],
    ["truthy 0", { path: ["zero"], operator: "truthy" }, false],
    ["truthy non-empty string", { path: ["text"], operator: "truthy" }, true],
    ["truthy empty string", { path: ["empty"], operator: "truthy" }, false],
    ["truthy non-empty array", { path: ["list"], operator: "truthy" }, true],
    ["truthy empty array", { path: ["none"], operator: "truthy" }, false],
    ["truthy missing", { path: ["missing"], operator: "truthy" }, false],
    ["falsy empty array", { path: ["none"], operator: "falsy" }, true],
    ["falsy null", { path: ["nil"], operator: "falsy" }, true],
    ["falsy true", { path: ["yes"], operator: "falsy" }, false],
    ["equals number", { path: ["n"], operator: "equals", value: 5 }, true],
    ["equals is strict", { path: ["n"], operator: "equals", value: "5" }, false],
    ["equals string", { path: ["text"], operator: "equals", value: "a" }, true],
    ["equals boolean", { path: ["no"], operator: "equals", value: false }, true],
    ["notEquals different", { path: ["text"], operator: "notEquals", value: "b" }, true],
    ["notEquals same", { path: ["n"], operator: "notEquals", value: 5 }, false],
    ["notEquals missing", { path: ["missing"], operator: "notEquals", value: "a" }, true],
    ["exists false value", { path: ["no"], operator: "exists" }, true],
    ["exists 0", { path: ["zero"], operator: "exists" }, true],
    ["exists null", { path: ["nil"], operator: "exists" }, false],
    ["exists missing", { path: ["missing"], operator: "exists" }, false],
    ["notExists null", { path: ["nil"], operator: "notExists" }, true],
    ["notExists missing", { path: ["missing"], operator: "notExists" }, true],
    ["notExists present", { path: ["text"], operator: "notExists" }, false],
    ["a nested path", { path: ["nested", "on"], operator: "truthy" }, true],
    ["a path through a scalar", { path: ["text", "length"], operator: "exists" }, false],
    ["a prototype property", { path: ["constructor"], operator: "exists" }, false],
  ];
  test.each(cases)("%s", async (_name, visibleWhen, visible) => {
    expect(await body({ type: "text", text: "shown", visibleWhen }, data)).toBe(visible ? "<div>shown</div>" : "");
  });

  test("scopes: current is the item, root is the whole data", async () => {
    const node: CompositionNode = {
      type: "repeat",
      source: { path: ["items"] },
      children: [
        { type: "text", text: { path: ["name"] }, visibleWhen: { path: ["paid"], operator: "truthy" } },
        { type: "text", text: "!", visibleWhen: { path: ["paid"], scope: "root", operator: "truthy" } },
        { type: "text", text: "?", visibleWhen: { path: ["flag"], scope: "current", operator: "exists" } },
      ],
    };
    const html = await body(node, { paid: false, items: [{ name: "a", paid: true }, { name: "b", paid: false, flag: 0 }] });
    expect(html).toBe("<div><div>a</div><div>?</div></div>");
  });

  test("a hidden node hides its subtree", async () => {
    expect(await body({ type: "container", visibleWhen: { path: ["x"], operator: "exists" }, children: [text("inner")] }, {})).toBe("");
  });
});

describe("value references", () => {
  const cases: [string, ValueReference, unknown, string][] = [
    ["a string", { path: ["a"] }, { a: "x" }, "x"],
    ["a number without format", { path: ["a"] }, { a: 1234.5 }, "1234.5"],
    ["a boolean", { path: ["a"] }, { a: true }, "true"],
    ["prefix and suffix", { path: ["a"], prefix: "(", suffix: ")" }, { a: "x" }, "(x)"],
    ["prefix and suffix on 0", { path: ["a"], prefix: "#" }, { a: 0 }, "#0"],
    ["missing: nothing", { path: ["a"], prefix: "(", suffix: ")" }, {}, ""],
    ["missing: the bare fallback", { path: ["a"], prefix: "(", fallback: "n/a" }, {}, "n/a"],
    ["null: the fallback", { path: ["a"], fallback: 0 }, { a: null }, "0"],
    ["an empty string is a value", { path: ["a"], fallback: "n/a", prefix: "[", suffix: "]" }, { a: "" }, "[]"],
    ["an object: the fallback", { path: ["a"], fallback: "-" }, { a: { b: 1 } }, "-"],
    ["an array index", { path: ["a", "1"] }, { a: ["x", "y"] }, "y"],
    ["an index out of range", { path: ["a", "5"], fallback: "-" }, { a: ["x"] }, "-"],
    ["a non-canonical index", { path: ["a", "01"], fallback: "-" }, { a: ["x", "y"] }, "-"],
    ["array length is not a path", { path: ["a", "length"], fallback: "-" }, { a: ["x"] }, "-"],
    ["a prototype path", { path: ["constructor", "name"], fallback: "-" }, {}, "-"],
    ["a format with an unreadable value: as it is", { path: ["a"], format: { type: "number" } }, { a: "twelve" }, "twelve"],
    ["a fallback is not formatted", { path: ["a"], fallback: 0.5, format: { type: "percent" } }, {}, "0.5"],
  ];
  test.each(cases)("%s", async (_name, reference, data, expected) => {
    expect(await body(text(reference), data)).toBe(`<div>${expected}</div>`);
  });

  test("parts are concatenated", async () => {
    const node = text({ parts: ["Total: ", { path: ["total"], format: { type: "currency", currency: "USD" } }, " (", 3, " items)"] });
    expect(await body(node, { total: 1234.5 })).toBe("<div>Total: $1,234.50 (3 items)</div>");
  });
});

describe("formats", () => {
  const cases: [string, ValueFormat, unknown, string][] = [
    ["number en-US (default locale)", { type: "number" }, 1234567.891, "1,234,567.891"],
    ["number de-DE", { type: "number", locale: "de-DE" }, 1234567.891, "1.234.567,891"],
    ["number with fraction digits", { type: "number", minimumFractionDigits: 2, maximumFractionDigits: 2 }, 3.14159, "3.14"],
    ["number from a numeric string", { type: "number", locale: "en-US", minimumFractionDigits: 2 }, "1999.5", "1,999.50"],
    ["number fr-FR", { type: "number", locale: "fr-FR" }, 1234.5, "1 234,5"],
    ["currency de-DE EUR", { type: "currency", locale: "de-DE", currency: "EUR" }, 1234.5, "1.234,50 €"],
    ["currency en-US USD", { type: "currency", currency: "USD" }, -42, "-$42.00"],
    ["currency ja-JP JPY", { type: "currency", locale: "ja-JP", currency: "JPY" }, 1234, "￥1,234"],
    ["currency en-GB GBP no decimals", { type: "currency", locale: "en-GB", currency: "GBP", maximumFractionDigits: 0, minimumFractionDigits: 0 }, 12.6, "£13"],
    ["percent en-US", { type: "percent" }, 0.256, "26%"],
    ["percent en-US with digits", { type: "percent", minimumFractionDigits: 1 }, 0.256, "25.6%"],
    ["percent de-DE", { type: "percent", locale: "de-DE" }, 0.5, "50 %"],
    ["date ISO date-only (medium, UTC)", { type: "date" }, "2024-01-31", "Jan 31, 2024"],
    ["date long with a time zone ahead", { type: "date", dateStyle: "long", timeZone: "Asia/Tokyo" }, "2024-01-31T20:00:00Z", "February 1, 2024"],
    ["date in UTC by default", { type: "date", dateStyle: "long" }, "2024-01-31T20:00:00Z", "January 31, 2024"],
    ["date with an offset", { type: "date", dateStyle: "short", timeZone: "UTC" }, "2024-03-01T01:00:00+02:00", "2/29/24"],
    ["date without offset is UTC", { type: "date", dateStyle: "short" }, "2024-03-01T00:30:00", "3/1/24"],
    ["date full de-DE", { type: "date", dateStyle: "full", locale: "de-DE", timeZone: "Europe/Berlin" }, "2024-12-24T12:00:00Z", "Dienstag, 24. Dezember 2024"],
    ["date from epoch ms", { type: "date", dateStyle: "medium", locale: "en-GB" }, 0, "1 Jan 1970"],
    ["date not ISO: as it is", { type: "date" }, "31/01/2024", "31/01/2024"],
    ["date impossible: as it is", { type: "date" }, "2024-13-45", "2024-13-45"],
  ];
  test.each(cases)("%s", async (_name, format, value, expected) => {
    expect(plain(await body(text({ path: ["v"], format }), { v: value }))).toBe(`<div>${expected}</div>`);
  });

  test("the render's locale and time zone are the defaults of every format", async () => {
    const template = compiled({ content: text({ path: ["v"], format: { type: "date", dateStyle: "long" } }) });
    const html = await renderHtml(template, { v: "2024-01-31T23:30:00Z" }, { ...options, locale: "fr-FR", timeZone: "Europe/Paris" });
    expect(html).toContain("<div>1 février 2024</div>");
  });

  test("formatters are shared between renders by what they depend on: the format and the render's defaults", async () => {
    const template = compiled({ content: text({ path: ["v"], format: { type: "date", dateStyle: "long" } }) });
    const data = { v: "2024-01-31T23:30:00Z" };
    const at = (locale: string, timeZone: string) => renderHtml(template, data, { ...options, locale, timeZone });
    expect(await at("en-US", "UTC")).toContain("<div>January 31, 2024</div>");
    expect(await at("en-US", "Asia/Tokyo")).toContain("<div>February 1, 2024</div>");
    expect(await at("de-DE", "UTC")).toContain("<div>31. Januar 2024</div>");
    expect(await at("en-US", "UTC")).toContain("<div>January 31, 2024</div>");
    // An equal format written as another object is the same formatter; a different one is not.
    const other = compiled({ content: text({ path: ["v"], format: { type: "date", dateStyle: "short" } }) });
    expect(await renderHtml(other, data, { ...options, locale: "en-US", timeZone: "UTC" })).toContain("<div>1/31/24</div>");
  });
});

describe("escaping hostile data", () => {
  const hostile = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "</style><script>alert(1)</script>",
    "' onmouseover='alert(1)",
    "<!-- --><iframe srcdoc='x'>",
  ];
  test.each(hostile)("text: %s", async (value) => {
    const html = await body(
      {
        type: "container",
        children: [
          text({ path: ["v"] }),
          text({ path: ["missing"], fallback: value }),
          text({ parts: [{ path: ["v"], prefix: "<b>", suffix: "</b>" }] }),
          { type: "table", source: { path: ["rows"] }, columns: [{ id: "c", header: "<th>", value: { path: ["v"] } }] },
        ],
      },
      { v: value, rows: [{ v: value }] },
    );
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<iframe");
    expect(html).not.toContain("</style>");
    expect(html).not.toContain("<b>");
    expect(html).not.toContain("'");
    expect(count(html, "&lt;")).toBeGreaterThan(0);
  });

  test("template literals are escaped too: className, text, header, emptyText", async () => {
    const template = compiled({
      content: {
        type: "container",
        className: '"><script>x</script>',
        children: [
          text("<em>literal</em>"),
          { type: "table", source: { path: ["none"] }, columns: [{ id: "c", header: "<u>h</u>", value: "" }], emptyText: "<i>empty</i>" },
        ],
      },
    });
    const html = await renderHtml(template, {}, options);
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<em>");
    expect(html).not.toContain("<u>");
    expect(html).not.toContain("<i>");
    expect(html).toContain('class="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
  });

  test("the trusted stylesheet cannot close its style element early", async () => {
    const template = compiled({ content: text("x"), stylesheet: "p{color:red}</STYLE ><script>alert(1)</script>" });
    const html = await renderHtml(template, {}, options);
    // Whatever the sheet holds stays raw text inside one <style>: the document has just the two closing tags it writes.
    expect(count(html.toLowerCase(), "</style")).toBe(2);
    expect(html).toContain("<style>p{color:red}<\\/STYLE ><script>alert(1)</script></style></head>");
  });

  test("style values are escaped for the attribute", async () => {
    expect(await body({ ...text("x"), style: { fontFamily: '"Open Sans", serif' } }, {})).toBe(
      '<div style="font-family:&quot;Open Sans&quot;, serif">x</div>',
    );
  });
});

describe("document, page and header/footer", () => {
  test("a full document: doctype, charset, CSP, page rule, stylesheet", async () => {
    const template = compiled({
      content: text("x"),
      stylesheet: "body{font-family:serif}",
      page: { size: "A4", orientation: "landscape", margin: { top: "20mm", bottom: "15mm" } },
    });
    const html = await renderHtml(template, {}, options);
    expect(html.startsWith('<!DOCTYPE html><html><head><meta charset="utf-8">')).toBe(true);
    expect(html).toContain("script-src 'none'");
    expect(html).toContain("<style>@page{size:A4 landscape;margin-top:20mm;margin-bottom:15mm}</style>");
    expect(html).toContain("<style>body{font-family:serif}</style>");
    expect(html.indexOf("@page")).toBeLessThan(html.indexOf("font-family:serif"));
    expect(html.endsWith("<body><div>x</div></body></html>")).toBe(true);
  });

  test.each([
    ["named size", { size: "Letter" as const }, "@page{size:Letter}"],
    ["orientation only", { orientation: "landscape" as const }, "@page{size:landscape}"],
    ["custom size", { size: { width: "100mm", height: "150mm" } }, "@page{size:100mm 150mm}"],
    ["custom size turned to landscape", { size: { width: "100mm", height: "6in" }, orientation: "landscape" as const }, "@page{size:6in 100mm}"],
    ["custom wide size kept in landscape", { size: { width: "8in", height: "10cm" }, orientation: "landscape" as const }, "@page{size:8in 10cm}"],
    ["margins only", { margin: { left: "1cm", right: "0.5in" } }, "@page{margin-right:0.5in;margin-left:1cm}"],
  ])("page: %s", async (_name, page, rule) => {
    expect(await renderHtml(compiled({ content: text("x"), page }), {}, options)).toContain(`<style>${rule}</style>`);
  });

  test("no page settings: no page rule", async () => {
    expect(await renderHtml(compiled({ content: text("x") }), {}, options)).not.toContain("@page");
  });

  test("header and footer: fragments with page values, data and the stylesheet", async () => {
    const template = compiled({
      content: text("body"),
      stylesheet: ".small{font-size:8px}",
      header: { type: "text", className: "small", text: { path: ["title"] } },
      footer: {
        type: "text",
        text: { parts: ["Page ", { path: ["$page", "number"] }, { path: ["$page", "count"], prefix: " of " }] },
        style: { textAlign: "center" },
      },
    });
    const header = await renderHeaderHtml(template, { title: "<Invoice>" }, options);
    expect(header).toBe('<style>.small{font-size:8px}</style><div style="width:100%;font-size:10px"><div class="small">&lt;Invoice&gt;</div></div>');
    const footer = await renderFooterHtml(template, {}, options);
    expect(footer).toContain('<div style="text-align:center">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>');
    expect(await renderHtml(template, {}, options)).not.toContain("pageNumber");
  });

  test("no header or footer: undefined", async () => {
    const template = compiled({ content: text("x") });
    expect(await renderHeaderHtml(template, {}, options)).toBeUndefined();
    expect(await renderFooterHtml(template, {}, options)).toBeUndefined();
  });

  test("a document over the node limit fails with LIMIT_EXCEEDED", async () => {
    const template = compiled({ content: { type: "repeat", source: { path: ["items"] }, children: [text("x")] } });
    const items = Array.from({ length: 11 }, () => ({}));
    expect(await renderHtml(template, { items: items.slice(0, 9) }, { ...options, maxNodes: 10 })).toContain("<div>x</div>");
    let error: unknown;
    try {
      await renderHtml(template, { items }, { ...options, maxNodes: 10 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("LIMIT_EXCEEDED");
  });
});
