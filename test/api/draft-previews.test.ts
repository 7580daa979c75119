/**
 * draft-previews: POST /v1/templates/{id}/preview with an unsaved `draft` (the console's designer previews every edit
 * this way): it prints the draft as a saved one prints — page, footer, assets, sample data — as a test render, leaves
 * the saved draft alone, and checks the draft exactly as saving it would, each problem pointed at below /draft.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { ok, startTestServer, type TestServer } from "../harness";
import { CSS, PNG, uploadSample } from "../fixtures/assets";
import { pdfText } from "../render/fixtures";
import { poppler } from "../render/poppler";

let t: TestServer;
let key: string;
let png: string;
let css: string;

beforeAll(async () => {
  t = await startTestServer();
  key = await t.makeKey(t.defaultWorkspaceId, ["template:read", "template:write", "render:create", "render:read", "asset:manage"]);
  png = (await uploadSample(t, key, { kind: "image", mediaType: "image/png", filename: "pixel.png", bytes: PNG })).id;
  css = (await uploadSample(t, key, { kind: "stylesheet", mediaType: "text/css", filename: "brand.css", bytes: CSS })).id;
});
afterAll(() => t.stop());

// Test renders are allowed 10 a minute on the manual clock: every test starts in a fresh minute.
beforeEach(() => t.clock.advance(61_000));

const renderCount = async () => (await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM renders"))!.n;

async function saved(): Promise<any> {
  return ok(await t.call("/v1/templates", { key, body: { name: "Saved", content: { type: "text", text: "Saved title" } } }), 201);
}

function preview(id: string, body: unknown, format = "pdf"): Promise<Response> {
  return fetch(`${t.url}/v1/templates/${id}/preview?format=${format}`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const DRAFT = {
  page: { size: "A5", margin: { top: "20mm", bottom: "25mm", left: "15mm", right: "15mm" } },
  dataSchema: { type: "object", properties: { who: { type: "string" } } },
  sampleData: { who: "Ada" },
  content: {
    type: "container",
    children: [
      { type: "text", text: { parts: ["Unsaved title for ", { path: ["who"] }] } },
      { type: "image", assetId: "PNG", width: 40, height: 40 },
    ],
  },
  footer: { type: "text", text: { parts: ["Page ", { path: ["$page", "number"] }, " of ", { path: ["$page", "count"] }] } },
};

test("an unsaved draft prints with its own sample data, page, footer and image, as a test render; the saved draft is unchanged", async () => {
  const template = await saved();
  const draft = JSON.parse(JSON.stringify(DRAFT).replace('"PNG"', JSON.stringify(png)));
  const res = await preview(template.id, { draft });
  expect([res.status, res.headers.get("content-type")]).toEqual([200, "application/pdf"]);
  const pdf = new Uint8Array(await res.arrayBuffer());
  const text = pdfText(pdf);
  expect(text).toContain("Unsaved title for Ada");
  expect(text).toContain("Page 1 of 1");
  // The diagonal TEST mark of a test render (pdftotext -raw reads rotated text).
  expect(poppler(pdf, (f) => ["pdftotext", "-raw", f, "-"]).replace(/\s/g, "")).toContain("TEST");
  // A5 is 420 × 595 pt; the image is drawn.
  expect(poppler(pdf, (f) => ["pdfinfo", f])).toMatch(/Page size:\s+420 x 594\.96 pts \(A5\)/);
  expect(poppler(pdf, (f) => ["pdfimages", "-list", f]).trim().split("\n").length).toBeGreaterThan(2);

  const row = await t.server.store.get("SELECT source, test, template_id, template_version FROM renders WHERE id = $id", { id: res.headers.get("x-render-id") });
  expect(row).toEqual({ source: "preview", test: 1, template_id: template.id, template_version: null });
  expect(ok(await t.call(`/v1/templates/${template.id}`, { key }), 200).draft).toEqual(template.draft);
  // Data sent with the draft wins over its sample data.
  expect(pdfText(new Uint8Array(await (await preview(template.id, { draft, data: { who: "Grace" } })).arrayBuffer()))).toContain("Unsaved title for Grace");
});

test("?format=html previews an unsaved draft's HTML with the stylesheet assets it names, and creates no render", async () => {
  const template = await saved();
  const before = await renderCount();
  const res = await preview(template.id, { draft: { assetIds: [css], content: { type: "text", text: "Styled draft" } } }, "html");
  expect(res.status).toBe(200);
  const html = await res.text();
  expect(html).toContain("Styled draft");
  expect(html).toContain("ünïcödé");
  expect(await renderCount()).toBe(before);
});

test("the draft is checked as saving it would be, each problem pointed at below /draft, and nothing is rendered", async () => {
  const template = await saved();
  const before = await renderCount();
  const refused = async (body: unknown) => {
    const res = await preview(template.id, body);
    const { error } = (await res.json()) as { error: { code: string; details?: { path: string }[] } };
    return [res.status, error.code, error.details?.map((d) => d.path)];
  };
  const node = (extra: unknown) => ({ content: { type: "container", children: [{ type: "text", text: "ok" }, extra] } });
  expect(await refused({ draft: node({ type: "text", txt: "typo" }) })).toEqual([400, "BAD_REQUEST", ["/draft/content/children/1/text", "/draft/content/children/1/txt"]]);
  expect(await refused({ draft: "not a draft" })).toEqual([400, "BAD_REQUEST", ["/draft"]]);
  expect(await refused({ draft: { ...node({ type: "text", text: { path: ["nope"] } }), dataSchema: { type: "object", properties: { who: { type: "string" } } } } })).toEqual([
    422,
    "TEMPLATE_INVALID",
    ["/draft/content/children/1/text/path"],
  ]);
  expect(await refused({ draft: node({ type: "image", assetId: "ast_missing" }) })).toEqual([422, "TEMPLATE_INVALID", ["/draft/content/children/1/assetId"]]);
  expect(await refused({ draft: { ...DRAFT, content: { type: "text", text: "x" }, footer: undefined, sampleData: { who: 5 } } })).toEqual([
    422,
    "DATA_INVALID",
    ["/draft/sampleData/who"],
  ]);
  expect(await refused({ draft: node({ type: "text", text: "fine" }), version: 1 })).toEqual([400, "BAD_REQUEST", ["/version"]]);
  expect(await renderCount()).toBe(before);
  const missing = await preview("tpl_missing", { draft: node({ type: "text", text: "fine" }) });
  expect(missing.status).toBe(404);
});
