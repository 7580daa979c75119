/**
 * render-templates: templates rendered end to end — POST /v1/templates, publish, POST /v1/renders?wait and previews —
 * through the real server and the real Chromium pool; the PDFs are read back with poppler (pdftotext, pdfinfo,
 * pdfimages, pdffonts). One test per node type and per visibleWhen operator (spec 2.12), then values and formats,
 * header and footer, page settings, template assets, escaping, data validation, versions and previews.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { ok, startTestServer, type TestServer } from "../harness";
import { local, PNG, uploadSample, type Sample } from "../fixtures/assets";
import { pdfText } from "../render/fixtures";
import { poppler } from "../render/poppler";
import { CLI_ACTOR } from "../../src/auth/actor";
import { createWorkspace } from "../../src/modules/workspaces/service";

let t: TestServer;
let key: string;
let png: string; // an uploaded 1×1 PNG of the default workspace

// A real TrueType font that is not Chromium's default face, so its name in the PDF proves the asset was used.
const FONT_FILE = "/usr/share/fonts/truetype/liberation/LiberationMono-BoldItalic.ttf";
const FONT_NAME = "LiberationMono-BoldItalic";

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "2" });
  key = await t.makeKey(t.defaultWorkspaceId, ["template:read", "template:write", "template:publish", "render:create", "render:read", "asset:manage"]);
  png = (await uploadSample(t, key, { kind: "image", mediaType: "image/png", filename: "pixel.png", bytes: PNG })).id;
});
afterAll(() => t.stop());

// Real and test renders are allowed 60 and 10 a minute on the manual clock: every test starts in a fresh minute.
beforeEach(() => t.clock.advance(61_000));


let names = 0;

/** createTemplate saves a template (a name is made up) and answers it. */
async function createTemplate(draft: Record<string, unknown>, as = key): Promise<any> {
  return ok(await t.call("/v1/templates", { key: as, body: { name: `Template ${++names}`, ...draft } }), 201);
}

async function publish(id: string, as = key): Promise<any> {
  return ok(await t.call(`/v1/templates/${id}/publish`, { key: as, method: "POST" }), 201);
}

interface Rendered {
  render: any;
  pdf: Uint8Array;
  text: string;
}

/** render creates a render with ?wait, expects it to succeed and downloads its PDF through the signed address. */
async function render(body: Record<string, unknown>, as = key): Promise<Rendered> {
  const r = ok(await t.call("/v1/renders?wait=30", { key: as, body }), 200);
  expect(r.status).toBe("succeeded");
  const res = await fetch(local(t, r.result.downloadUrl));
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/pdf");
  const pdf = new Uint8Array(await res.arrayBuffer());
  expect(pdf.byteLength).toBe(r.result.bytes);
  return { render: r, pdf, text: pdfText(pdf) };
}

/** renderDraft saves a template and renders its draft (a test render) with data. */
async function renderDraft(draft: Record<string, unknown>, data: unknown): Promise<Rendered & { template: any }> {
  const template = await createTemplate(draft);
  const rendered = await render({ templateId: template.id, data, test: true });
  expect(rendered.render).toMatchObject({ test: true, templateId: template.id });
  expect(rendered.render.templateVersion).toBeUndefined();
  return { ...rendered, template };
}

/** words answers the words of pdfText output, to tell "a-b" from "a-bc". */
const words = (text: string) => new Set(text.split(" "));

/** images answers the rows of `pdfimages -list` that are images drawn (not the soft masks of their alpha). */
function images(pdf: Uint8Array): string[] {
  const rows = poppler(pdf, (f) => ["pdfimages", "-list", f]).trim().split("\n").slice(2);
  return rows.filter((row) => row.trim().split(/\s+/)[2] === "image");
}

/** pageSize answers pdfinfo's "Page size" of page 1 in points, e.g. [792, 612]. */
function pageSize(pdf: Uint8Array): [number, number] {
  const line = poppler(pdf, (f) => ["pdfinfo", f]).match(/^Page size:\s+([\d.]+) x ([\d.]+) pts/m);
  if (!line) throw new Error("pdfinfo printed no page size");
  return [Number(line[1]), Number(line[2])];
}

/** fonts answers the font names pdffonts lists (subset tags such as "ABCDEF+" removed). */
function fonts(pdf: Uint8Array): string[] {
  return poppler(pdf, (f) => ["pdffonts", f]).trim().split("\n").slice(2).map((l) => l.split(/\s+/)[0]!.replace(/^[A-Z]{6}\+/, ""));
}

/** wordBoxes answers every word pdftotext finds with its left edge in points. */
function wordBoxes(pdf: Uint8Array): { word: string; xMin: number }[] {
  const html = poppler(pdf, (f) => ["pdftotext", "-bbox", f, "-"]);
  return [...html.matchAll(/<word xMin="([\d.]+)"[^>]*>([^<]*)<\/word>/g)].map((m) => ({ word: m[2]!, xMin: Number(m[1]) }));
}

const renderCount = async () => (await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM renders"))!.n;

let workspaces = 0;
// A workspace without members: faster than t.makeWorkspace, which hashes a password.
async function freshWorkspace(name: string): Promise<string> {
  return (await t.server.store.tx((tx) => createWorkspace(tx, t.clock, { actor: CLI_ACTOR, requestId: "test-setup" }, { name, slug: `render-tpl-${++workspaces}` }))).id;
}

const text = (value: unknown, more: Record<string, unknown> = {}) => ({ type: "text", text: value, ...more });
const container = (children: unknown[], more: Record<string, unknown> = {}) => ({ type: "container", children, ...more });

describe("node types", () => {
  test("container: children in order, nested, with className and style; display:none hides its subtree", async () => {
    const { text: out, render: r } = await renderDraft(
      {
        stylesheet: ".upper { text-transform: uppercase; }",
        content: container([
          text("first-child"),
          container([text("second-child"), container([text("third-child")])]),
          container([text("hidden-child")], { style: { display: "none" } }),
          container([text("shouted-child")], { className: "upper" }),
          container([]),
          text("last-child"),
        ]),
      },
      {},
    );
    expect(r.result.pages).toBe(1);
    expect(out).toMatch(/first-child second-child third-child SHOUTED-CHILD last-child/);
    expect(out).not.toContain("hidden-child");
  });

  test("text: literals, value references (scope, fallback, prefix, suffix) and {parts}", async () => {
    const data = {
      name: "Ada",
      age: 36,
      nested: { city: "Paris" },
      zero: 0,
      flag: false,
      nothing: null,
      object: { a: 1 },
      list: [1, 2],
    };
    const lines = [
      text("Literal text"),
      text(42),
      text(true),
      text({ path: ["name"] }),
      text({ path: ["name"], scope: "root", prefix: "Root=" }),
      text({ path: ["name"], scope: "current", prefix: "Current=" }),
      text({ path: ["nested", "city"], prefix: "City: ", suffix: "!" }),
      text({ path: ["zero"], prefix: "Zero=" }),
      text({ path: ["flag"], prefix: "Flag=" }),
      text({ path: ["list", "1"], prefix: "Second=" }),
      // Missing, null, object: the bare fallback, without prefix or suffix.
      text({ path: ["missing"], fallback: "fallback-missing", prefix: "NOPREFIX", suffix: "NOSUFFIX" }),
      text({ path: ["nothing"], fallback: "fallback-null" }),
      text({ path: ["object"], fallback: "fallback-object" }),
      text({ path: ["list"], fallback: 0 }),
      text({ path: ["name", "length"], fallback: "fallback-no-string-property" }),
      text({ path: ["constructor", "name"], fallback: "fallback-no-prototype" }),
      // Missing without a fallback: nothing at all.
      text({ path: ["missing"], prefix: "Invisible prefix", suffix: "Invisible suffix" }),
      text({ parts: ["Hello ", { path: ["name"] }, ", you are ", { path: ["age"], suffix: " years" }, " - ", 7, " ", false, { path: ["missing"], fallback: "." }] }),
      text("shout me", { style: { textTransform: "uppercase" } }),
    ];
    const { text: out } = await renderDraft({ content: container(lines) }, data);
    for (const expected of [
      "Literal text",
      "42",
      "true",
      "Ada",
      "Root=Ada",
      "Current=Ada",
      "City: Paris!",
      "Zero=0",
      "Flag=false",
      "Second=2",
      "fallback-missing",
      "fallback-null",
      "fallback-object",
      "fallback-no-string-property",
      "fallback-no-prototype",
      "Hello Ada, you are 36 years - 7 false.",
      "SHOUT ME",
    ])
      expect(out).toContain(expected);
    expect(out).not.toContain("NOPREFIX");
    expect(out).not.toContain("NOSUFFIX");
    expect(out).not.toContain("Invisible");
    expect(out).not.toContain("[object");
    expect(words(out).has("0")).toBe(true); // the fallback 0 of the list reference
  });

  test("image: an uploaded PNG by literal id (body and header) and by an id read from data; a non-id from data renders nothing", async () => {
    const literal = await renderDraft(
      { content: container([text("before-image"), { type: "image", assetId: png, width: 40, height: 30 }, text("after-image")]) },
      {},
    );
    expect(literal.text).toContain("before-image after-image");
    expect(images(literal.pdf)).toHaveLength(1);

    // Chromium prints the header as a document of its own that loads nothing: its image is inlined when the job is made.
    const header = await renderDraft({ content: text("body only"), header: { type: "image", assetId: png, width: 20 } }, {});
    expect(images(header.pdf)).toHaveLength(1);

    const fromData = await renderDraft(
      {
        content: container([
          { type: "image", assetId: { path: ["logo"] }, width: 40 },
          { type: "image", assetId: { path: ["url"] } },
          { type: "image", assetId: { path: ["path"] } },
          { type: "image", assetId: { path: ["missing"] } },
          text("images-from-data"),
        ]),
      },
      { logo: png, url: "https://example.com/x.png", path: "../../etc/passwd" },
    );
    expect(fromData.text).toContain("images-from-data");
    expect(images(fromData.pdf)).toHaveLength(1);

    // The HTML the page printed: the width and height are kept, the non-ids became no element at all.
    const html = ok(
      await t.call(`/v1/templates/${fromData.template.id}/preview?format=html`, { key, body: { data: { logo: png, url: "https://example.com/x.png", path: "../x" } } }),
      200,
    ) as string;
    expect(html.match(/<img /g)).toHaveLength(1);
    expect(html).toContain('width="40"');
    expect(html).not.toContain("example.com");
    expect(html).not.toContain("../x");
  });

  test("repeat: children per item with current and root scopes, nested repeats, and `empty` for an empty, missing or non-list source", async () => {
    const data = {
      currency: "EUR",
      items: [
        { name: "apple", qty: 3, tags: ["red", "sweet"] },
        { name: "pear", qty: 1, tags: [] },
      ],
      none: [],
      notAList: "apple",
    };
    const { text: out } = await renderDraft(
      {
        content: container([
          {
            type: "repeat",
            source: { path: ["items"] },
            children: [
              text({ parts: ["item-", { path: ["name"] }, " x", { path: ["qty"] }, " ", { path: ["currency"], scope: "root" }, " ", { path: ["currency"], fallback: "no-current-currency" }] }),
              {
                type: "repeat",
                source: { path: ["tags"] },
                children: [text({ parts: ["tag-", { path: ["0"], fallback: "?" }] })],
                empty: [text({ parts: ["no-tags-for-", { path: ["name"] }] })],
              },
            ],
            empty: [text("never-shown")],
          },
          { type: "repeat", source: { path: ["none"] }, children: [text("never-shown")], empty: [text("empty-list"), text({ path: ["currency"], prefix: "empty-sees-" })] },
          { type: "repeat", source: { path: ["missing"] }, children: [text("never-shown")], empty: [text("missing-list")] },
          { type: "repeat", source: { path: ["notAList"] }, children: [text("never-shown")], empty: [text("not-a-list")] },
          { type: "repeat", source: { path: ["none"] }, children: [text("never-shown")] },
          text("end-of-repeats"),
        ]),
      },
      data,
    );
    // The item is the current scope, so `currency` (only at the root) falls back inside the repeat.
    expect(out).toContain("item-apple x3 EUR no-current-currency");
    expect(out).toContain("item-pear x1 EUR no-current-currency no-tags-for-pear");
    expect(out).toMatch(/item-apple .* item-pear/);
    expect(out).toContain("empty-list empty-sees-EUR missing-list not-a-list end-of-repeats");
    expect(out).not.toContain("never-shown");
    // A path never walks into a string: each of apple's two tags ("red", "sweet") shows the fallback.
    expect(out.match(/tag-\?/g)).toHaveLength(2);
  });

  test("table: columns with header, value, width and style; headerStyle and cellStyle; showHeader false; emptyText", async () => {
    const data = {
      lines: [
        { name: "Widget", qty: 2, price: 9.5 },
        { name: "Gadget", qty: 10, price: "1234.5" },
      ],
      none: [],
    };
    const columns = [
      { id: "name", header: "Item Name", value: { path: ["name"] }, width: 300, style: { textTransform: "uppercase" } },
      { id: "qty", header: "Qty", value: { parts: [{ path: ["qty"] }, " PCS"] } },
      { id: "price", header: "Price", value: { path: ["price"], format: { type: "currency", currency: "EUR" } } },
    ];
    const { text: out, pdf } = await renderDraft(
      {
        content: container([
          { type: "table", source: { path: ["lines"] }, columns, headerStyle: { textTransform: "lowercase" }, cellStyle: { textTransform: "lowercase" } },
          text("second-table"),
          { type: "table", source: { path: ["lines"] }, showHeader: false, columns: [{ id: "n", header: "HiddenHeader", value: { path: ["name"], prefix: "row-" } }] },
          text("third-table"),
          { type: "table", source: { path: ["none"] }, emptyText: "No lines yet", columns: [{ id: "n", header: "EmptyHeader", value: { path: ["name"] } }] },
          text("fourth-table"),
          { type: "table", source: { path: ["missing"] }, showHeader: false, columns: [{ id: "n", header: "Nothing", value: "never-shown" }] },
          text("end-of-tables"),
        ]),
      },
      data,
    );
    // Column style applies after headerStyle and cellStyle: the name column is upper case, the others lower case.
    expect(out).toContain("ITEM NAME qty price");
    expect(out).toContain("WIDGET 2 pcs €9.50");
    expect(out).toContain("GADGET 10 pcs €1,234.50");
    expect(out).toContain("second-table row-Widget row-Gadget third-table");
    expect(out).not.toContain("HiddenHeader");
    expect(out).toContain("EmptyHeader No lines yet fourth-table end-of-tables");
    expect(out).not.toContain("Nothing");
    expect(out).not.toContain("never-shown");
    // The first column is 300px (225pt) wide: the second column's cells start right of it (headers are centred).
    const boxes = wordBoxes(pdf);
    const nameX = boxes.find((b) => b.word === "WIDGET")!.xMin;
    const qtyX = boxes.find((b) => b.word === "2")!.xMin;
    expect(qtyX - nameX).toBeGreaterThanOrEqual(225);
    expect(qtyX - nameX).toBeLessThan(250);
  });

  test("component: with a `data` reference, with the caller's current value, nested, and from a repeat with a root reference", async () => {
    const data = {
      customer: { name: "Ada", city: "London" },
      boss: { name: "Grace", city: "Arlington" },
      people: [
        { name: "Alan", city: "Wilmslow" },
        { name: "Edsger", city: "Austin" },
      ],
    };
    const { text: out } = await renderDraft(
      {
        components: {
          card: container([text({ parts: ["card:", { path: ["name"] }, "@", { path: ["city"], fallback: "nowhere" }] })]),
          office: container([text("office-of"), { type: "component", componentId: "card", data: { path: ["boss"], scope: "root" } }]),
        },
        content: container([
          { type: "component", componentId: "card", data: { path: ["customer"] } },
          { type: "repeat", source: { path: ["people"] }, children: [{ type: "component", componentId: "card" }] },
          { type: "repeat", source: { path: ["people"] }, children: [{ type: "component", componentId: "card", data: { path: ["customer"], scope: "root" } }] },
          { type: "component", componentId: "office", data: { path: ["people", "0"] } },
          { type: "component", componentId: "card", data: { path: ["missing"] } },
          { type: "component", componentId: "card", className: "wrapped", style: { fontWeight: 700 } },
        ]),
      },
      data,
    );
    expect(out).toContain("card:Ada@London");
    expect(out).toContain("card:Alan@Wilmslow card:Edsger@Austin");
    expect(out).toMatch(/card:Edsger@Austin card:Ada@London card:Ada@London office-of card:Grace@Arlington/);
    // A data reference to nothing gives the component nothing to read; without data it reads the caller's (root) value.
    expect(out).toContain("card:@nowhere");
    expect(out.match(/card:@nowhere/g)).toHaveLength(2);
  });
});

describe("visibleWhen operators", () => {
  const data = {
    string: "x",
    emptyString: "",
    zero: 0,
    one: 1,
    no: false,
    yes: true,
    nothing: null,
    emptyList: [],
    list: [0],
    emptyObject: {},
    five: 5,
    fiveText: "5",
    name: "Ada",
    nested: { deep: "here" },
  };
  type Case = [label: string, path: string[], shown: boolean, value?: string | number | boolean];

  /** conditions renders one text per case, each visible when the operator holds, and checks which were printed. */
  async function conditions(operator: string, cases: Case[]): Promise<void> {
    const nodes = cases.map(([label, path, , value]) => text(label, { visibleWhen: { path, operator, ...(value === undefined ? {} : { value }) } }));
    const { text: out } = await renderDraft({ content: container([text("anchor"), ...nodes]) }, data);
    const seen = words(out);
    expect(seen.has("anchor")).toBe(true);
    expect(cases.filter(([label]) => seen.has(label)).map(([label]) => label)).toEqual(cases.filter(([, , shown]) => shown).map(([label]) => label));
  }

  // truthy is JavaScript truthiness except that an empty list is falsy (compile.ts); falsy is its opposite.
  const truthiness: [string, string[], boolean][] = [
    ["string", ["string"], true],
    ["emptyString", ["emptyString"], false],
    ["zero", ["zero"], false],
    ["one", ["one"], true],
    ["false", ["no"], false],
    ["true", ["yes"], true],
    ["null", ["nothing"], false],
    ["emptyList", ["emptyList"], false],
    ["list", ["list"], true],
    ["emptyObject", ["emptyObject"], true],
    ["missing", ["missing"], false],
    ["nested", ["nested", "deep"], true],
  ];

  test("truthy", async () => {
    await conditions("truthy", truthiness.map(([name, path, truthy]) => [`truthy-${name}`, path, truthy]));
  });

  test("falsy", async () => {
    await conditions("falsy", truthiness.map(([name, path, truthy]) => [`falsy-${name}`, path, !truthy]));
  });

  // equals compares strictly: 5 is not "5", 0 is not false.
  const equality: [string, string[], string | number | boolean, boolean][] = [
    ["five-5", ["five"], 5, true],
    ["five-text", ["five"], "5", false],
    ["fiveText-text", ["fiveText"], "5", true],
    ["fiveText-5", ["fiveText"], 5, false],
    ["name", ["name"], "Ada", true],
    ["name-case", ["name"], "ada", false],
    ["true", ["yes"], true, true],
    ["false", ["no"], false, true],
    ["zero-false", ["zero"], false, false],
    ["missing-empty", ["missing"], "", false],
    ["nested", ["nested", "deep"], "here", true],
  ];

  test("equals", async () => {
    await conditions("equals", equality.map(([name, path, value, equal]) => [`equals-${name}`, path, equal, value]));
  });

  test("notEquals", async () => {
    await conditions("notEquals", equality.map(([name, path, value, equal]) => [`notEquals-${name}`, path, !equal, value]));
  });

  // exists means neither missing nor null; a path never reaches into a string's or a prototype's properties.
  const existence: [string, string[], boolean][] = [
    ["string", ["string"], true],
    ["emptyString", ["emptyString"], true],
    ["zero", ["zero"], true],
    ["false", ["no"], true],
    ["emptyList", ["emptyList"], true],
    ["emptyObject", ["emptyObject"], true],
    ["null", ["nothing"], false],
    ["missing", ["missing"], false],
    ["nested", ["nested", "deep"], true],
    ["nested-gone", ["nested", "gone"], false],
    ["string-length", ["string", "length"], false],
    ["prototype", ["emptyObject", "constructor"], false],
    ["list-0", ["list", "0"], true],
    ["list-1", ["list", "1"], false],
  ];

  test("exists", async () => {
    await conditions("exists", existence.map(([name, path, exists]) => [`exists-${name}`, path, exists]));
  });

  test("notExists", async () => {
    await conditions("notExists", existence.map(([name, path, exists]) => [`notExists-${name}`, path, !exists]));
  });

  test("scopes: current (the default) is the item in a repeat and a component's data, root is the whole data", async () => {
    const scoped = {
      flag: true,
      off: false,
      items: [
        { flag: false, name: "first" },
        { flag: true, name: "second" },
      ],
    };
    const labelled = (label: string, visibleWhen: Record<string, unknown>) => text({ parts: [label, { path: ["name"], fallback: "" }] }, { visibleWhen });
    const { text: out } = await renderDraft(
      {
        components: {
          probe: container([
            labelled("component-default-", { path: ["flag"], operator: "truthy" }),
            labelled("component-root-", { path: ["flag"], scope: "root", operator: "truthy" }),
          ]),
        },
        content: container([
          text("top-default", { visibleWhen: { path: ["flag"], operator: "truthy" } }),
          text("top-current", { visibleWhen: { path: ["flag"], scope: "current", operator: "truthy" } }),
          text("top-root", { visibleWhen: { path: ["flag"], scope: "root", operator: "truthy" } }),
          {
            type: "repeat",
            source: { path: ["items"] },
            children: [
              labelled("default-", { path: ["flag"], operator: "truthy" }),
              labelled("current-", { path: ["flag"], scope: "current", operator: "truthy" }),
              labelled("root-", { path: ["flag"], scope: "root", operator: "truthy" }),
              labelled("rootoff-", { path: ["off"], scope: "root", operator: "truthy" }),
              labelled("itemname-", { path: ["name"], operator: "equals", value: "first" }),
            ],
          },
          { type: "component", componentId: "probe", data: { path: ["items", "0"] } },
          container([text("hidden-subtree")], { visibleWhen: { path: ["off"], scope: "root", operator: "truthy" } }),
        ]),
      },
      scoped,
    );
    // In print order: the repeat's first item has flag false, its second true; the component reads item 0.
    expect(out.split(" ")).toEqual([
      "top-default",
      "top-current",
      "top-root",
      "root-first",
      "itemname-first",
      "default-second",
      "current-second",
      "root-second",
      "component-root-first",
    ]);
    expect(out).not.toContain("component-default-");
    expect(out).not.toContain("rootoff-");
    expect(out).not.toContain("hidden-subtree");
  });
});

describe("values and formats", () => {
  test("number, currency, percent and date formats with locale, currency, fraction digits, dateStyle and timeZone", async () => {
    const data = {
      amount: 1234.5,
      amountText: "1234.5",
      half: 2.5,
      rate: 0.125,
      day: "2024-01-31",
      late: "2024-01-31T23:30:00Z",
      local: "2024-01-31T23:30:00",
      epoch: 0,
      soon: "soon",
    };
    const line = (label: string, reference: Record<string, unknown>) => text({ parts: [`${label}=`, reference] });
    const { text: out } = await renderDraft(
      {
        content: container([
          line("number", { path: ["amount"], format: { type: "number", minimumFractionDigits: 2 } }),
          line("rounded", { path: ["half"], format: { type: "number", maximumFractionDigits: 0 } }),
          line("eur", { path: ["amount"], format: { type: "currency", currency: "EUR" } }),
          line("eurDe", { path: ["amount"], format: { type: "currency", currency: "EUR", locale: "de-DE" } }),
          line("usdText", { path: ["amountText"], format: { type: "currency", currency: "USD" } }),
          line("jpy", { path: ["amount"], format: { type: "currency", currency: "JPY", maximumFractionDigits: 0 } }),
          line("percent", { path: ["rate"], format: { type: "percent", maximumFractionDigits: 1 } }),
          line("percentRounded", { path: ["rate"], format: { type: "percent" } }),
          line("long", { path: ["day"], format: { type: "date", dateStyle: "long" } }),
          line("tokyo", { path: ["late"], format: { type: "date", dateStyle: "long", timeZone: "Asia/Tokyo" } }),
          line("utc", { path: ["late"], format: { type: "date", dateStyle: "long" } }),
          line("noOffset", { path: ["local"], format: { type: "date", dateStyle: "long" } }),
          line("fullDe", { path: ["late"], format: { type: "date", dateStyle: "full", locale: "de-DE", timeZone: "Europe/Berlin" } }),
          line("short", { path: ["day"], format: { type: "date", dateStyle: "short" } }),
          line("epoch", { path: ["epoch"], format: { type: "date" } }),
          line("unreadable", { path: ["soon"], format: { type: "date" }, prefix: "due " }),
          line("notANumber", { path: ["soon"], format: { type: "number" } }),
          line("wrapped", { path: ["amount"], format: { type: "currency", currency: "EUR" }, prefix: "Total ", suffix: " net" }),
          line("missing", { path: ["missing"], format: { type: "currency", currency: "EUR" }, prefix: "Total ", fallback: "n/a" }),
        ]),
      },
      data,
    );
    for (const expected of [
      "number=1,234.50",
      "rounded=3",
      "eur=€1,234.50",
      "eurDe=1.234,50 €", // Intl puts a no-break space before €; pdfText collapses it
      "usdText=$1,234.50",
      "jpy=¥1,235",
      "percent=12.5%",
      "percentRounded=13%",
      "long=January 31, 2024",
      "tokyo=February 1, 2024",
      "utc=January 31, 2024",
      "noOffset=January 31, 2024", // a date-time without an offset is read as UTC
      "fullDe=Donnerstag, 1. Februar 2024",
      "short=1/31/24",
      "epoch=Jan 1, 1970",
      "unreadable=due soon",
      "notANumber=soon",
      "wrapped=Total €1,234.50 net",
      "missing=n/a",
    ])
      expect(out).toContain(expected);
  });
});

describe("header, footer and page", () => {
  test("header and footer show data, the page number and the page count on a 3-page document", async () => {
    const page = (n: number, last = false) => container([text(`body-page-${n}`)], last ? {} : { style: { breakAfter: "page" } });
    const { text: out, render: r, pdf } = await renderDraft(
      {
        stylesheet: ".heading { text-transform: uppercase; }",
        content: container([page(1), page(2), page(3, true)]),
        header: container([text({ path: ["title"] }, { className: "heading" }), text({ path: ["$page", "number"], prefix: "p.", suffix: "/" })]),
        footer: text({ parts: ["Page ", { path: ["$page", "number"] }, " of ", { path: ["$page", "count"] }] }),
      },
      { title: "Quarterly report" },
    );
    expect(r.result.pages).toBe(3);
    expect(poppler(pdf, (f) => ["pdfinfo", f])).toMatch(/^Pages:\s+3$/m);
    for (const n of [1, 2, 3]) {
      expect(out).toContain(`Page ${n} of 3`);
      expect(out).toContain(`p.${n}/`);
      expect(out).toContain(`body-page-${n}`);
    }
    // The header is a document of its own that carries the template stylesheet.
    expect(out.match(/QUARTERLY REPORT/g)).toHaveLength(3);
    expect(out).not.toContain("Quarterly report");
    expect(out).toMatch(/QUARTERLY REPORT p\.1\/ body-page-1 Page 1 of 3 QUARTERLY REPORT p\.2\/ body-page-2 Page 2 of 3/);
  });

  // Chromium fills elements of class date, title, url, pageNumber and totalPages in the header and footer with its own
  // values (the host's date, about:blank…), which would wipe the node's text: such a template does not compile.
  test("a className Chromium reserves in the header and footer is refused: 422 TEMPLATE_INVALID at the node", async () => {
    const footer = container(["Due on delivery", "See terms", "Invoice"].map((s, i) => text(s, { className: ["date", "url", "title"][i] })));
    const res = await t.call("/v1/templates", { key, body: { name: "Reserved classes", content: text("body"), footer } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("TEMPLATE_INVALID");
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(["/footer/children/0/className", "/footer/children/1/className", "/footer/children/2/className"]);
    // The same class names in the content are the template's own.
    const { text: out } = await renderDraft({ content: container([text("Due on delivery", { className: "date" }), text("Invoice", { className: "title" })]) }, {});
    expect(out).toContain("Due on delivery Invoice");
  });

  test("page settings: Letter landscape is 792 x 612 pt; a custom size is turned to match its orientation", async () => {
    const letter = await renderDraft({ content: text("letter-landscape"), page: { size: "Letter", orientation: "landscape", margin: { top: "1in", left: "1in" } } }, {});
    expect(letter.text).toContain("letter-landscape");
    expect(pageSize(letter.pdf)).toEqual([792, 612]);

    const custom = await renderDraft({ content: text("custom"), page: { size: { width: "100mm", height: "50mm" }, orientation: "portrait", margin: { top: "5mm" } } }, {});
    const [w, h] = pageSize(custom.pdf);
    // Chromium rounds the sheet to its own units: within a point of 50 x 100 mm (141.7 x 283.5 pt).
    expect(Math.abs(w - (50 / 25.4) * 72)).toBeLessThan(1);
    expect(Math.abs(h - (100 / 25.4) * 72)).toBeLessThan(1);
  });
});

describe("template assets", () => {
  const css = (text: string, filename = "brand.css"): Sample => ({ kind: "stylesheet", mediaType: "text/css", filename, bytes: new TextEncoder().encode(text) });

  test("a stylesheet asset applies to the body and the footer; the template's own stylesheet comes after it and wins", async () => {
    const sheet = css('.hidden { display: none; } .tag::before { content: "PREFIXED-"; } .case { text-transform: lowercase; }');
    const asset = (await uploadSample(t, key, sheet)).id;
    const { text: out } = await renderDraft(
      {
        assetIds: [asset],
        stylesheet: ".case { text-transform: uppercase; }",
        content: container([text("visible-word"), text("secret-word", { className: "hidden" }), text("word", { className: "tag" }), text("Mixed Case", { className: "case" })]),
        footer: text("footer-word", { className: "tag" }),
      },
      {},
    );
    expect(out).toContain("visible-word");
    expect(out).not.toContain("secret-word");
    expect(out).toContain("PREFIXED-word");
    expect(out).toContain("MIXED CASE");
    expect(out).toContain("PREFIXED-footer-word");
  });

  test.skipIf(!existsSync(FONT_FILE))("a font asset is loaded as the family named after its file", async () => {
    const bytes = Uint8Array.from(readFileSync(FONT_FILE));
    const font = (await uploadSample(t, key, { kind: "font", mediaType: "font/ttf", filename: "brandmono.ttf", bytes })).id;
    const draft = { stylesheet: 'body { font-family: "brandmono", serif; }', content: text("Typeset in the brand font") };
    const branded = await renderDraft({ ...draft, assetIds: [font] }, {});
    expect(branded.text).toContain("Typeset in the brand font");
    expect(fonts(branded.pdf)).toContain(FONT_NAME);
    // Without the asset the same stylesheet falls back to another face.
    const plain = await renderDraft(draft, {});
    expect(fonts(plain.pdf)).not.toContain(FONT_NAME);
  });

  test("an assetIds asset deleted after the template was saved: the render is 422 ASSET_INVALID and nothing is queued", async () => {
    const asset = (await uploadSample(t, key, css(".x { color: red; }", "gone.css"))).id;
    const template = await createTemplate({ assetIds: [asset], content: text("styled") });
    await publish(template.id);
    ok(await t.call(`/v1/assets/${asset}`, { key, method: "DELETE" }), 200);
    const before = await renderCount();
    for (const body of [{ templateId: template.id }, { templateId: template.id, test: true }, { templateId: template.id, version: 1 }]) {
      const res = await t.call("/v1/renders?wait=30", { key, body });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("ASSET_INVALID");
      expect(res.body.error.details).toEqual([{ path: "/assetIds/0", message: `asset ${asset} was not found` }]);
    }
    const preview = await t.call(`/v1/templates/${template.id}/preview`, { key, body: {} });
    expect(preview.status).toBe(422);
    expect(preview.body.error.code).toBe("ASSET_INVALID");
    expect(await renderCount()).toBe(before);
  });

  test("an image asset deleted after the template was saved: the render is 422 ASSET_INVALID at the image node", async () => {
    const image = (await uploadSample(t, key, { kind: "image", mediaType: "image/png", filename: "doomed.png", bytes: PNG })).id;
    const template = await createTemplate({ content: container([text("with an image"), { type: "image", assetId: image }]) });
    ok(await t.call(`/v1/assets/${image}`, { key, method: "DELETE" }), 200);
    const res = await t.call("/v1/renders?wait=30", { key, body: { templateId: template.id, test: true } });
    expect([res.status, res.body.error?.code]).toEqual([422, "ASSET_INVALID"]);
    expect(res.body.error.details).toEqual([{ path: "/content/children/1/assetId", message: `asset ${image} was not found` }]);
  });
});

describe("escaping", () => {
  test("markup in data is printed as text and injects nothing: body, parts, table cells and header", async () => {
    const data = {
      script: "<script>document.body.innerHTML='INJECTED'</script>",
      bold: "<b>bold</b>",
      close: "</div></body></html>",
      quotes: `Tom & Jerry "double" 'single' &amp;`,
      img: '<img src="x" onerror="alert(1)">',
      rows: [{ cell: "</td></tr></table><p>outside</p>" }],
    };
    const draft = {
      content: container([
        text({ path: ["script"] }),
        text({ parts: ["bold: ", { path: ["bold"] }, " <i>literal</i>"] }),
        text({ path: ["close"], prefix: "<u>", suffix: "</u>" }),
        text("after-close"),
        text({ path: ["quotes"] }),
        text({ path: ["img"] }),
        { type: "table", source: { path: ["rows"] }, columns: [{ id: "c", header: "<th>head</th>", value: { path: ["cell"] } }] },
        text("the-end"),
      ]),
      header: text({ path: ["bold"], prefix: "header " }),
    };
    const { text: out, pdf, template } = await renderDraft(draft, data);
    for (const expected of [
      "<script>document.body.innerHTML='INJECTED'</script>",
      "bold: <b>bold</b> <i>literal</i>",
      "<u></div></body></html></u>",
      `Tom & Jerry "double" 'single' &amp;`,
      '<img src="x" onerror="alert(1)">',
      "<th>head</th>",
      "</td></tr></table><p>outside</p>",
      "header <b>bold</b>",
    ])
      expect(out).toContain(expected);
    expect(out).toMatch(/<u><\/div><\/body><\/html><\/u> after-close .* the-end/);
    expect(words(out).has("INJECTED")).toBe(false);
    expect(images(pdf)).toHaveLength(0);

    const html = ok(await t.call(`/v1/templates/${template.id}/preview?format=html`, { key, body: { data } }), 200) as string;
    expect(html).toContain("&lt;script&gt;document.body.innerHTML=&#39;INJECTED&#39;&lt;/script&gt;");
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<b>");
    expect(html).not.toContain('<img src="x"');
  });
});

describe("data validation", () => {
  test("data that breaks the data schema is 422 DATA_INVALID pointing at the field; nothing is queued or counted", async () => {
    const template = await createTemplate({
      dataSchema: {
        type: "object",
        properties: { customer: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
        required: ["customer"],
      },
      content: text({ path: ["customer", "name"], prefix: "Customer: " }),
    });
    await publish(template.id);
    const before = await renderCount();
    const limits = async () => ok(await t.call("/v1/render-limits", { key }), 200);
    const usedBefore = await limits();

    const cases: [unknown, { path: string; message: string }[]][] = [
      [{ customer: {} }, [{ path: "/data/customer/name", message: "is required" }]],
      [{ customer: { name: 5 } }, [{ path: "/data/customer/name", message: "must be a string" }]],
      [{ customer: { name: null } }, [{ path: "/data/customer/name", message: "must be a string" }]],
      [{}, [{ path: "/data/customer", message: "is required" }]],
      [undefined, [{ path: "/data/customer", message: "is required" }]],
      [[], [{ path: "/data", message: "must be an object" }]],
    ];
    for (const [data, details] of cases) {
      for (const asTest of [false, true]) {
        const res = await t.call("/v1/renders?wait=30", { key, body: { templateId: template.id, data, test: asTest } });
        expect([res.status, res.body.error.code]).toEqual([422, "DATA_INVALID"]);
        expect(res.body.error.details).toEqual(details);
      }
    }
    // A preview and a batch item are checked the same way, each pointed at in its own body.
    const preview = await t.call(`/v1/templates/${template.id}/preview`, { key, body: { data: { customer: { name: 5 } } } });
    expect([preview.status, preview.body.error.code]).toEqual([422, "DATA_INVALID"]);
    expect(preview.body.error.details).toEqual([{ path: "/data/customer/name", message: "must be a string" }]);
    const batch = await t.call("/v1/renders/batch", { key, body: { items: [{ templateId: template.id, data: { customer: { name: "ok" } } }, { templateId: template.id, data: { customer: {} } }] } });
    expect([batch.status, batch.body.error.code]).toEqual([422, "DATA_INVALID"]);
    expect(batch.body.error.details).toEqual([{ path: "/items/1/data/customer/name", message: "is required" }]);

    expect(await renderCount()).toBe(before);
    const usedAfter = await limits();
    expect(usedAfter.documentsThisMonth).toBe(usedBefore.documentsThisMonth);
    expect(usedAfter.testRendersToday).toBe(usedBefore.testRendersToday);

    const good = await render({ templateId: template.id, data: { customer: { name: "Ada Lovelace", extra: [1] } } });
    expect(good.text).toContain("Customer: Ada Lovelace");
  });
});

describe("versions", () => {
  test("a version renders as published, no version renders the latest, test renders the draft; no published version is 409", async () => {
    const line = (label: string) => ({ content: text({ parts: [label, " for ", { path: ["who"] }] }) });
    const template = await createTemplate(line("Draft one"));
    const data = { who: "Ada" };

    const early = await t.call("/v1/renders?wait=30", { key, body: { templateId: template.id, data } });
    expect([early.status, early.body.error.code]).toEqual([409, "CONFLICT"]);
    expect(early.body.error.message).toBe(`Template ${template.id} has no published version; publish it first, or render its draft.`);
    const earlyDraft = await render({ templateId: template.id, data, test: true });
    expect(earlyDraft.text).toContain("Draft one for Ada");

    const v1 = await publish(template.id);
    expect(v1.version).toBe(1);
    // Published versions are kept parsed and compiled: the latest must still move on when a new one is published.
    expect((await render({ templateId: template.id, data })).text).toContain("Draft one for Ada");
    ok(await t.call(`/v1/templates/${template.id}`, { key, method: "PATCH", body: line("Version two") }), 200);
    expect((await publish(template.id)).version).toBe(2);
    ok(await t.call(`/v1/templates/${template.id}`, { key, method: "PATCH", body: line("Draft three") }), 200);

    const first = await render({ templateId: template.id, version: 1, data });
    expect(first.text).toContain("Draft one for Ada");
    expect(first.render).toMatchObject({ templateId: template.id, templateVersion: 1, test: false });

    const latest = await render({ templateId: template.id, data });
    expect(latest.text).toContain("Version two for Ada");
    expect(latest.render).toMatchObject({ templateId: template.id, templateVersion: 2, test: false });

    const draft = await render({ templateId: template.id, data, test: true });
    expect(draft.text).toContain("Draft three for Ada");
    expect(draft.render.test).toBe(true);
    expect(draft.render.templateVersion).toBeUndefined();

    // GET answers the same version the render was made from.
    expect(ok(await t.call(`/v1/renders/${first.render.id}`, { key }), 200).templateVersion).toBe(1);

    const missing = await t.call("/v1/renders?wait=30", { key, body: { templateId: template.id, version: 7, data } });
    expect([missing.status, missing.body.error.code]).toEqual([404, "NOT_FOUND"]);
  });
});

describe("previews", () => {
  test("POST /v1/templates/:id/preview answers the draft's PDF with x-render-id; ?format=html answers its HTML and creates no render", async () => {
    const template = await createTemplate({ content: text({ parts: ["Preview v1 for ", { path: ["who"] }] }) });
    await publish(template.id);
    ok(await t.call(`/v1/templates/${template.id}`, { key, method: "PATCH", body: { content: text({ parts: ["Preview draft for ", { path: ["who"] }] }) } }), 200);

    const res = await fetch(`${t.url}/v1/templates/${template.id}/preview`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ data: { who: "Ada" } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    const renderId = res.headers.get("x-render-id")!;
    expect(renderId).toMatch(/^rnd_/);
    const pdf = new Uint8Array(await res.arrayBuffer());
    expect(pdfText(pdf)).toContain("Preview draft for Ada");
    const row = await t.server.store.get<{ source: string; test: number; status: string; template_version: number | null }>(
      "SELECT source, test, status, template_version FROM renders WHERE id = $id",
      { id: renderId },
    );
    // A preview is a test render even where documentsPerMonth is unlimited (as here): it is marked TEST.
    expect(row).toEqual({ source: "preview", test: 1, status: "succeeded", template_version: null });

    const versioned = await fetch(`${t.url}/v1/templates/${template.id}/preview`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ data: { who: "Grace" }, version: 1 }),
    });
    expect(versioned.status).toBe(200);
    expect(pdfText(new Uint8Array(await versioned.arrayBuffer()))).toContain("Preview v1 for Grace");

    const before = await renderCount();
    const html = await t.call(`/v1/templates/${template.id}/preview?format=html`, { key, body: { data: { who: "<Ada>" } } });
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(html.body).toStartWith("<!DOCTYPE html>");
    expect(html.body).toContain("Preview draft for &lt;Ada&gt;");
    expect(await renderCount()).toBe(before);

    const reader = await t.makeKey(t.defaultWorkspaceId, ["template:read", "render:read"]);
    expect((await t.call(`/v1/templates/${template.id}/preview`, { key: reader, body: {} })).status).toBe(403);
    expect((await t.call(`/v1/templates/${template.id}/preview?format=html`, { key: reader, body: {} })).status).toBe(403);
  });

  test("a preview is a test render with or without a documentsPerMonth allowance: counted as one, never as a document", async () => {
    const admin = await t.signIn();
    for (const documentsPerMonth of [null, 100]) {
      const ws = await freshWorkspace(`Previews with documentsPerMonth ${documentsPerMonth}`);
      const k = await t.makeKey(ws, ["template:write", "render:create", "render:read"]);
      const allowances = { maxActiveRenders: 10, rendersPerMinute: 60, documentsPerMonth };
      ok(await t.call(`/v1/companies/${ws}/allowances`, { method: "PUT", cookie: admin, body: allowances }), 200);
      const template = await createTemplate({ content: text("metered preview") }, k);
      const res = await fetch(`${t.url}/v1/templates/${template.id}/preview`, { method: "POST", headers: { "x-api-key": k, "content-type": "application/json" }, body: "{}" });
      expect(res.status).toBe(200);
      expect(pdfText(new Uint8Array(await res.arrayBuffer()))).toContain("metered preview");
      const id = res.headers.get("x-render-id")!;
      expect(await t.server.store.get<{ test: number; source: string }>("SELECT test, source FROM renders WHERE id = $id", { id })).toEqual({ test: 1, source: "preview" });
      const got = ok(await t.call(`/v1/renders/${id}`, { key: k }), 200);
      expect(got).toMatchObject({ status: "succeeded", test: true, templateId: template.id });
      // A test render is no document of the month; it is one of the day's test renders.
      const limits = ok(await t.call("/v1/render-limits", { key: k }), 200);
      expect({ documentsPerMonth, documents: limits.documentsThisMonth, tests: limits.testRendersToday }).toEqual({ documentsPerMonth, documents: 0, tests: 1 });
    }
  });
});
