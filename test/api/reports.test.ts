import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import ExcelJS from "exceljs";
import { PUBLIC_URL, startTestServer, type TestServer } from "../harness";
import { local, PNG, uploadSample, type Sample } from "../fixtures/assets";
import { pdfText } from "../render/fixtures";
import { until } from "../wait";
import { XLSX } from "../../src/modules/assets/model";
import { subscribeToEnds } from "../webhooks/subscribe";
import { RECEIVER_ENV } from "../webhooks/receiver";

let t: TestServer;
let key: string; // render:create, render:read, asset:manage in the default workspace
let templateKey: string; // the same with template:write and template:publish
let admin: string; // the platform administrator's session cookie

beforeAll(async () => {
  t = await startTestServer(RECEIVER_ENV);
  key = await t.makeKey(t.defaultWorkspaceId, ["render:create", "render:read", "asset:manage"]);
  templateKey = await t.makeKey(t.defaultWorkspaceId, ["render:create", "render:read", "template:write", "template:publish"]);
  admin = await t.signIn();
});
afterAll(() => t.stop());

interface Caller {
  key?: string;
  cookie?: string;
}

/** report posts a report body and answers the raw response (an XLSX answer is bytes, not JSON). */
async function report(body: unknown, as: Caller = { key }): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (as.key) headers["x-api-key"] = as.key;
  if (as.cookie) {
    headers.cookie = as.cookie;
    headers.origin = PUBLIC_URL;
  }
  return fetch(`${t.url}/v1/reports`, { method: "POST", headers, body: JSON.stringify(body) });
}

async function workbookOf(res: Response): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(await res.arrayBuffer()) as unknown as ExcelJS.Buffer);
  return workbook;
}

async function workbookSample(build: (sheet: ExcelJS.Worksheet) => void, filename = "invoice.xlsx"): Promise<Sample> {
  const workbook = new ExcelJS.Workbook();
  build(workbook.addWorksheet("Invoice"));
  return { kind: "workbook", mediaType: XLSX, filename, bytes: new Uint8Array((await workbook.xlsx.writeBuffer()) as ArrayBuffer) };
}

const sheets = [
  {
    name: "Orders",
    source: ["orders"],
    columns: [
      { header: "Order", value: { path: ["id"] } },
      { header: "Total", value: { path: ["total"], format: { type: "currency", currency: "EUR" } } },
      { header: "Due", value: { path: ["due"], format: { type: "date" } } },
    ],
  },
];
const data = { orders: [{ id: "A-1", total: 12.5, due: "2026-03-31" }, { id: "A-2", total: 7 }] };

/** freshWorkspace gives a workspace with an owner session and a render key, so allowance tests touch no other test. */
async function freshWorkspace(name: string) {
  const ws = await t.makeWorkspace(name);
  return { ...ws, key: await t.makeKey(ws.id, ["render:create", "render:read", "asset:manage"]) };
}

const setAllowances = (id: string, body: Record<string, unknown>) =>
  t.call(`/v1/companies/${id}/allowances`, { cookie: admin, method: "PUT", body: { maxActiveRenders: 10, rendersPerMinute: 60, ...body } });

describe("POST /v1/reports (xlsx from sheets)", () => {
  test("answers the workbook bytes as an attachment", async () => {
    const res = await report({ format: "xlsx", data, sheets, filename: "März orders" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(XLSX);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="M_rz orders.xlsx"; filename*=UTF-8''M%C3%A4rz%20orders.xlsx`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const sheet = (await workbookOf(res)).getWorksheet("Orders")!;
    expect(sheet.getRow(1).values).toEqual([undefined, "Order", "Total", "Due"] as any);
    expect(sheet.getCell("A1").font?.bold).toBe(true);
    expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    expect(sheet.getCell("B2").value).toBe(12.5);
    expect(sheet.getCell("B2").numFmt).toBe('"€"#,##0.00');
    expect((sheet.getCell("C2").value as Date).toISOString()).toBe("2026-03-31T00:00:00.000Z");
    expect(sheet.getCell("A3").value).toBe("A-2");
    expect(sheet.getCell("C3").value).toBeNull();
  });

  test("the filename defaults to report.xlsx", async () => {
    const res = await report({ format: "xlsx", data, sheets });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toStartWith('attachment; filename="report.xlsx"');
  });

  test("creates no render, no usage and no event", async () => {
    const ws = await freshWorkspace("Quiet");
    // An endpoint for every end event: a render's end would be a row of webhook_events and a request to the receiver.
    const receiver = await subscribeToEnds(t, ws.id);
    expect((await report({ format: "xlsx", data, sheets }, { key: ws.key })).status).toBe(200);
    const store = t.server.store;
    expect((await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM renders WHERE workspace_id = $ws", { ws: ws.id }))!.n).toBe(0);
    expect((await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM usage_days WHERE workspace_id = $ws", { ws: ws.id }))!.n).toBe(0);
    expect((await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_events WHERE workspace_id = $ws", { ws: ws.id }))!.n).toBe(0);
    await t.server.webhooks.runOnce();
    expect(receiver.requests).toEqual([]);
    receiver.stop();
  });
});

describe("POST /v1/reports (xlsx from a workbook asset)", () => {
  test("fills the placeholders and repeats the marked rows", async () => {
    const sample = await workbookSample((sheet) => {
      sheet.getCell("A1").value = "Invoice {{number}}";
      sheet.getCell("B1").value = "{{total}}";
      sheet.getCell("A2").value = "{{#each items}}";
      sheet.getCell("A3").value = "{{name}}";
      sheet.getCell("A3").font = { italic: true };
      sheet.getCell("B3").value = "{{amount}}";
      sheet.getCell("A4").value = "{{/each}}";
      sheet.getCell("A5").value = "Thanks";
    });
    const asset = await uploadSample(t, key, sample);
    const res = await report({ format: "xlsx", workbookAssetId: asset.id, data: { number: 42, total: 3, items: [{ name: "a", amount: 1 }, { name: "b", amount: 2 }] } });
    expect(res.status).toBe(200);
    const sheet = (await workbookOf(res)).getWorksheet("Invoice")!;
    expect(sheet.getCell("A1").value).toBe("Invoice 42");
    expect(sheet.getCell("B1").value).toBe(3);
    expect([sheet.getCell("A2").value, sheet.getCell("B2").value, sheet.getCell("A3").value, sheet.getCell("B3").value]).toEqual(["a", 1, "b", 2]);
    expect(sheet.getCell("A3").font?.italic).toBe(true);
    expect(sheet.getCell("A4").value).toBe("Thanks");
  });

  test("another workspace's workbook, an unknown id and a non-workbook asset get the same 422", async () => {
    const other = await freshWorkspace("Other");
    const foreign = await uploadSample(t, other.key, await workbookSample((s) => (s.getCell("A1").value = "x")));
    const image = await uploadSample(t, key, { kind: "image", mediaType: "image/png", filename: "p.png", bytes: PNG });
    for (const id of [foreign.id, "ast_unknown", image.id]) {
      const res = await report({ format: "xlsx", workbookAssetId: id, data: {} });
      expect(res.status).toBe(422);
      const body = (await res.json()) as any;
      expect(body.error.code).toBe("ASSET_INVALID");
      expect(body.error.message).toBe(`Asset ${id} is not an uploaded workbook of this workspace.`);
      expect(body.error.details).toEqual([{ path: "/workbookAssetId", message: "must name an uploaded asset of kind workbook" }]);
    }
  });

  test("a workbook with a bad placeholder is 422 ASSET_INVALID naming the cell", async () => {
    const asset = await uploadSample(t, key, await workbookSample((s) => (s.getCell("C4").value = "{{total | cash}}")));
    const res = await report({ format: "xlsx", workbookAssetId: asset.id, data: {} });
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(body.error.details).toEqual([{ path: "/workbookAssetId", message: 'sheet "Invoice" cell C4: unknown format "cash"; use number, currency, percent or date at offset 10' }]);
  });
});

describe("POST /v1/reports refusals", () => {
  const cases: [string, unknown, string, string][] = [
    ["neither sheets nor a workbook", { format: "xlsx", data }, "BAD_REQUEST", "/sheets"],
    ["both sheets and a workbook", { format: "xlsx", data, sheets, workbookAssetId: "ast_x" }, "BAD_REQUEST", "/workbookAssetId"],
    ["a template with xlsx", { format: "xlsx", data, sheets, templateId: "tpl_x" }, "BAD_REQUEST", "/templateId"],
    ["sheets with pdf", { format: "pdf", data, sheets }, "BAD_REQUEST", "/sheets"],
    ["an extra field", { format: "xlsx", data, sheets, locale: "de" }, "BAD_REQUEST", "/locale"],
    ["no data", { format: "xlsx", sheets }, "BAD_REQUEST", "/data"],
    ["an unknown format", { format: "csv", data, sheets }, "BAD_REQUEST", "/format"],
    ["a sheet name with a slash", { format: "xlsx", data, sheets: [{ ...sheets[0], name: "a/b" }] }, "BAD_REQUEST", "/sheets/0/name"],
    ["a sheet name over 31 characters", { format: "xlsx", data, sheets: [{ ...sheets[0], name: "x".repeat(32) }] }, "BAD_REQUEST", "/sheets/0/name"],
    ["two sheets of one name", { format: "xlsx", data, sheets: [sheets[0], { ...sheets[0], name: "orders" }] }, "BAD_REQUEST", "/sheets/1/name"],
    ["no columns", { format: "xlsx", data, sheets: [{ ...sheets[0], columns: [] }] }, "BAD_REQUEST", "/sheets/0/columns"],
    ["an extra column field", { format: "xlsx", data, sheets: [{ ...sheets[0], columns: [{ header: "x", value: { path: ["x"] }, style: {} }] }] }, "BAD_REQUEST", "/sheets/0/columns/0/style"],
    ["a width over 255", { format: "xlsx", data, sheets: [{ ...sheets[0], columns: [{ header: "x", value: { path: ["x"] }, width: 256 }] }] }, "BAD_REQUEST", "/sheets/0/columns/0/width"],
    ["a source that is not an array", { format: "xlsx", data: { orders: 5 }, sheets }, "DATA_INVALID", "/data/orders"],
  ];
  for (const [name, body, code, path] of cases) {
    test(`${name}: ${code} at ${path}`, async () => {
      const res = await report(body);
      const answer = (await res.json()) as any;
      expect(answer.error.code).toBe(code);
      expect(res.status).toBe(code === "BAD_REQUEST" ? 400 : 422);
      expect(answer.error.details.map((d: { path: string }) => d.path)).toContain(path);
    });
  }

  test("a PDF report queues a real render of the template's newest version, which prints the data", async () => {
    const content = { type: "container", children: [{ type: "text", text: { path: ["title"] } }] };
    const template = await t.call("/v1/templates", { key: templateKey, body: { name: "Report", content, dataSchema: { type: "object", properties: { title: { type: "string" } } } } });
    await t.call(`/v1/templates/${template.body.id}/publish`, { key: templateKey, method: "POST" });
    const res = await report({ format: "pdf", data: { title: "Quarterly report" }, templateId: template.body.id, filename: "q3.pdf" });
    expect(res.status).toBe(202);
    const render = (await res.json()) as any;
    expect(render).toMatchObject({ test: false, templateId: template.body.id, templateVersion: 1, filename: "q3.pdf" });
    await until(async () => (await t.server.store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id: render.id }))!.status === "succeeded");
    const read = await t.call(`/v1/renders/${render.id}`, { key: templateKey });
    expect(pdfText(new Uint8Array(await (await fetch(local(t, read.body.result.downloadUrl))).arrayBuffer()))).toContain("Quarterly report");
  });

  test("a PDF report needs a templateId; an unknown one is 404", async () => {
    const missing = await report({ format: "pdf", data });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as any).error.details).toEqual([{ path: "/templateId", message: "is required when format is pdf" }]);
    expect((await report({ format: "pdf", data, templateId: "tpl_x" })).status).toBe(404);
  });

  test("more cells than a report may write is 413 LIMIT_EXCEEDED", async () => {
    const many = { orders: Array.from({ length: 33_334 }, () => 0) };
    const res = await report({ format: "xlsx", data: many, sheets });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe("LIMIT_EXCEEDED");
  });

  test("needs render:create; anonymous callers are 401", async () => {
    const reader = await t.makeKey(t.defaultWorkspaceId, ["render:read", "asset:manage"]);
    const res = await report({ format: "xlsx", data, sheets }, { key: reader });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error.message).toBe("This operation needs the render:create scope.");
    expect((await report({ format: "xlsx", data, sheets }, {})).status).toBe(401);
  });
});

describe("POST /v1/reports allowances", () => {
  test("an XLSX output counts as a document: over documentsPerMonth it is 429 QUOTA_EXCEEDED", async () => {
    const ws = await freshWorkspace("Quota");
    expect((await setAllowances(ws.id, { documentsPerMonth: 1 })).status).toBe(200);
    // A refused definition counts nothing.
    expect((await report({ format: "xlsx", data: { orders: 5 }, sheets }, { key: ws.key })).status).toBe(422);
    expect((await report({ format: "xlsx", data, sheets }, { key: ws.key })).status).toBe(200);
    const second = await report({ format: "xlsx", data, sheets }, { key: ws.key });
    expect(second.status).toBe(429);
    const body = (await second.json()) as any;
    expect(body.error).toMatchObject({ code: "QUOTA_EXCEEDED", retryable: false });
    const limits = await t.call("/v1/render-limits", { key: ws.key });
    expect(limits.body.documentsThisMonth).toBe(1);
  });

  test("a suspended workspace's session is 403", async () => {
    const ws = await freshWorkspace("Suspended");
    expect((await setAllowances(ws.id, { suspended: true })).status).toBe(200);
    const res = await report({ format: "xlsx", data, sheets }, { cookie: ws.cookie });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error.code).toBe("FORBIDDEN");
    const text = await t.call("/v1/strings/render", { cookie: ws.cookie, body: { template: "x" } });
    expect(text.status).toBe(403);
    const limits = await t.call("/v1/render-limits", { cookie: ws.cookie });
    expect(limits.body.documentsThisMonth).toBe(0);
  });
});

describe("POST /v1/strings/render", () => {
  const render = (body: unknown, k = key) => t.call("/v1/strings/render", { key: k, body });

  test("answers {text} with placeholders filled and formatted", async () => {
    const res = await render({
      template: "Dear {{customer.name}}, you owe {{total | currency EUR}} by {{due | date long}} ({{missing ?? n/a}}).",
      data: { customer: { name: "Ada <3" }, total: 1234.5, due: "2026-04-01" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ text: "Dear Ada <3, you owe €1,234.50 by April 1, 2026 (n/a)." });
  });

  test("locale and timeZone set the defaults; data may be left out", async () => {
    const res = await render({ template: "{{n | number 2}} {{at | date}}", data: { n: 1234.5, at: "2026-01-31T23:30:00Z" }, locale: "de-DE", timeZone: "Asia/Tokyo" });
    expect(res.body).toEqual({ text: "1.234,50 01.02.2026" });
    expect((await render({ template: "[{{x}}]" })).body).toEqual({ text: "[]" });
  });

  test("a placeholder that does not parse is 422 TEMPLATE_INVALID with its offset", async () => {
    const res = await render({ template: "Hi {{name | fancy}}", data: {} });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("TEMPLATE_INVALID");
    expect(res.body.error.details).toEqual([{ path: "/template", message: 'unknown format "fancy"; use number, currency, percent or date at offset 12' }]);
  });

  test("bad bodies are 400 with pointers", async () => {
    for (const [body, path] of [
      [{ template: "x", extra: 1 }, "/extra"],
      [{}, "/template"],
      [{ template: "x".repeat(100_001) }, "/template"],
      [{ template: "x", locale: "not a locale" }, "/locale"],
      [{ template: "x", timeZone: "Mars/Olympus" }, "/timeZone"],
    ] as const) {
      const res = await render(body);
      expect(res.status).toBe(400);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });

  test("needs render:create", async () => {
    const reader = await t.makeKey(t.defaultWorkspaceId, ["render:read"]);
    expect((await render({ template: "x" }, reader)).status).toBe(403);
  });
});
