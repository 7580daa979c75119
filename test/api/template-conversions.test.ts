/**
 * template-conversions (issue 14): a known invoice is rendered through the API, its PDF converted into a template, and
 * the template rendered with the conversion's sampleData; pdftotext then reads both PDFs — the words in reading order
 * (a longest common subsequence) and their positions (-bbox). Also: a scanned PDF, the monthly allowance and its
 * counter, every refusal, the audit trail, a restart, and names from a model behind a local chat endpoint.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { ok, startTestServer, type TestServer } from "../harness";
import { local, PDF, PNG, uploadSample } from "../fixtures/assets";
import { INVOICE_DATA, INVOICE_TEMPLATE } from "../fixtures/invoice";
import { commonWords, pdfWords } from "../fixtures/pdf-words";
import { poppler } from "../render/poppler";

let t: TestServer;
let key: string;
let admin: string;

const SCOPES = ["template:read", "template:write", "template:publish", "render:create", "render:read", "asset:manage", "audit:read"] as const;

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1" });
  key = await t.makeKey(t.defaultWorkspaceId, [...SCOPES]);
  admin = await t.signIn();
});
afterAll(() => t.stop());

// Test renders are allowed 10 a minute on the manual clock: every test starts in a fresh minute.
beforeEach(() => t.clock.advance(61_000));

/** renderPdf renders with ?wait and answers the PDF's bytes. */
async function renderPdf(body: Record<string, unknown>, as = key, server = t): Promise<Uint8Array> {
  const r = ok(await server.call("/v1/renders?wait=30", { key: as, body }), 200);
  expect(r.status).toBe("succeeded");
  return new Uint8Array(await (await fetch(local(server, r.result.downloadUrl))).arrayBuffer());
}

async function uploadPdf(bytes: Uint8Array, filename = "invoice.pdf", as = key): Promise<string> {
  return (await uploadSample(t, as, { kind: "pdf", mediaType: "application/pdf", filename, bytes: bytes as Uint8Array<ArrayBuffer> })).id;
}

/** convert asks for a conversion of an asset and answers it once the runner is done with it. */
async function convert(assetId: string, as = key, server = t): Promise<any> {
  const created = ok(await server.call("/v1/template-conversions", { key: as, body: { assetId } }), 202);
  expect(created).toMatchObject({ assetId, status: "queued" });
  await server.server.conversions.idle();
  return ok(await server.call(`/v1/template-conversions/${created.id}`, { key: as }), 200);
}

let invoicePdf: Uint8Array;
const invoice = async () => {
  if (invoicePdf) return invoicePdf;
  const template = ok(await t.call("/v1/templates", { key, body: INVOICE_TEMPLATE }), 201);
  ok(await t.call(`/v1/templates/${template.id}/publish`, { key, method: "POST" }), 201);
  // A real render: the source has no TEST mark, as a customer's PDF would not.
  return (invoicePdf = await renderPdf({ templateId: template.id, data: INVOICE_DATA }));
};

describe("a rendered invoice converted and rendered again", () => {
  let conversion: any;
  let again: Uint8Array;

  beforeAll(async () => {
    const restore = ok(await t.call(`/v1/companies/${t.defaultWorkspaceId}/allowances`, { method: "PUT", cookie: admin, body: { maxActiveRenders: 10, rendersPerMinute: 60 } }), 200);
    expect(restore.templateConversionsPerMonth).toBeNull();
    conversion = await convert(await uploadPdf(await invoice()));
    again = await renderPdf({ templateId: conversion.templateId, data: conversion.sampleData, test: true });
  });

  test("the conversion succeeds with a template and the values of the source as sampleData", async () => {
    // A copy: Bun 1.4.5's toMatchObject writes its asymmetric matchers into the object it checks.
    expect(structuredClone(conversion)).toMatchObject({ status: "succeeded", templateId: expect.stringMatching(/^tpl_/), createdAt: expect.any(String), finishedAt: expect.any(String) });
    expect(conversion.error).toBeUndefined();
    expect(conversion.sampleData).toMatchObject({
      invoiceNumber: "INV-2026-0042",
      issued: "2026-03-10",
      due: "2026-04-09",
      email: "accounts@northwind.example",
      totalDue: "$2,283.50",
      items: [
        { description: "Consulting hours", qty: "12", unitPrice: "$150.00", amount: "$1,800.00" },
        { description: "Travel expenses", qty: "1", unitPrice: "$420.50", amount: "$420.50" },
        { description: "Report printing", qty: "30", unitPrice: "$2.10", amount: "$63.00" },
      ],
    });
  });

  test("the template is a real draft: source page size and margins, a data schema the sample data satisfies, the sample data kept", async () => {
    const template = ok(await t.call(`/v1/templates/${conversion.templateId}`, { key }), 200);
    expect(template.name).toBe("invoice");
    // The values found are the template's own sample data too: a preview without data shows the source again.
    expect(template.draft.sampleData).toEqual(conversion.sampleData);
    const { page, dataSchema, content } = template.draft;
    // A4 as Chromium prints it (594.96 × 841.92 pt), and the 18 mm / 20 mm margins of the source, to the point.
    expect(Number.parseFloat(page.size.width)).toBeCloseTo(209.9, 0);
    expect(Number.parseFloat(page.size.height)).toBeCloseTo(297, 0);
    expect(Number.parseFloat(page.margin.left)).toBeGreaterThan(17);
    expect(Number.parseFloat(page.margin.left)).toBeLessThanOrEqual(18.1);
    expect(dataSchema.properties.items).toEqual({
      type: "array",
      items: { type: "object", properties: { description: { type: "string" }, qty: { type: "string" }, unitPrice: { type: "string" }, amount: { type: "string" } }, required: ["description", "qty", "unitPrice", "amount"] },
    });
    expect(dataSchema.required).toEqual(expect.arrayContaining(["invoiceNumber", "issued", "due", "email", "totalDue", "items"]));
    const json = JSON.stringify(content);
    expect(json).toContain('"type":"repeat"');
    expect(json.match(/"textAlign":"right"/g)).toHaveLength(3);
    expect(json).toContain('{"parts":["Invoice number: ",{"path":["invoiceNumber"]}]}');
    // The table's rules and the rule above the total are drawn; the title keeps its colour and weight.
    expect(json).toContain('"backgroundColor":"#333333"');
    expect(json).toMatch(/"text":"INVOICE","style":\{[^}]*"fontWeight":700[^}]*"color":"#1f4e8c"/);
  });

  test("at least 95% of the source's words come back in the same reading order (LCS), each within 3 points", () => {
    const before = pdfWords(invoicePdf);
    const after = pdfWords(again);
    const pairs = commonWords(before, after);
    expect(before.length).toBeGreaterThan(40);
    expect(pairs.length / before.length).toBeGreaterThanOrEqual(0.95);
    const off = pairs
      .map(([i, j]) => ({ word: before[i]!.text, dx: after[j]!.xMin - before[i]!.xMin, dy: after[j]!.yMin - before[i]!.yMin, page: after[j]!.page - before[i]!.page }))
      .filter((d) => Math.abs(d.dx) > 3 || Math.abs(d.dy) > 3 || d.page !== 0);
    expect(off).toEqual([]);
  });

  test("other data renders in the draft: more table rows and other values, right-aligned numbers still end in line", async () => {
    const data = { ...conversion.sampleData, invoiceNumber: "INV-2026-0099", items: [...conversion.sampleData.items, { description: "Binding", qty: "200", unitPrice: "$5.00", amount: "$12,345.00" }] };
    const words = pdfWords(await renderPdf({ templateId: conversion.templateId, data, test: true }));
    const texts = words.map((w) => w.text);
    expect(texts).toContain("INV-2026-0099");
    expect(texts).toContain("Binding");
    expect(texts).not.toContain("INV-2026-0042");
    const rightOf = (text: string) => words.find((w) => w.text === text)!.xMax;
    expect(Math.abs(rightOf("$12,345.00") - rightOf("$1,800.00"))).toBeLessThan(1);
    expect(Math.abs(rightOf("200") - rightOf("12"))).toBeLessThan(1);
  });

  test("creation and success are audited, the template's creation on behalf of the key that asked", async () => {
    const events = ok(await t.call(`/v1/audit-events?resourceId=${conversion.id}`, { key }), 200).items;
    expect(events.map((e: any) => e.action).sort()).toEqual(["template_conversion.created", "template_conversion.succeeded"]);
    expect(events.find((e: any) => e.action === "template_conversion.succeeded").metadata).toEqual({ templateId: conversion.templateId });
    const created = ok(await t.call(`/v1/audit-events?resourceId=${conversion.templateId}`, { key }), 200).items;
    expect(created).toMatchObject([{ action: "template.created", actorType: "api_key" }]);
  });

  test("the list is paged like every list, newest first", async () => {
    const newer = await convert(conversion.assetId);
    const first = ok(await t.call("/v1/template-conversions?limit=1", { key }), 200);
    expect(first.items).toHaveLength(1);
    expect(first.nextCursor).toEqual(expect.any(String));
    const rest = ok(await t.call(`/v1/template-conversions?limit=100&cursor=${first.nextCursor}`, { key }), 200);
    expect(first.items[0].id).toBe(newer.id);
    // Like a template list without drafts: the sample data, which may be large, is read one conversion at a time.
    expect(first.items[0]).toEqual({ ...newer, sampleData: undefined });
    expect(Object.keys(first.items[0])).not.toContain("sampleData");
    expect(rest.items.map((c: any) => c.id)).toContain(conversion.id);
    expect(ok(await t.call("/v1/template-conversions?limit=0", { key }), 400).error.details).toEqual([{ path: "/limit", message: expect.any(String) }]);
  });
});

describe("a PDF of two pages in a size of its own", () => {
  test("each page becomes a page of the source's size, its text on it where it was", async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const first = doc.addPage([500, 700]);
    first.drawText("Statement for March", { x: 60, y: 620, size: 18, font });
    first.drawText("Opened: 2026-03-01", { x: 60, y: 590, size: 11, font });
    first.drawLine({ start: { x: 60, y: 570 }, end: { x: 440, y: 570 }, thickness: 1 });
    const second = doc.addPage([500, 700]);
    second.drawText("Closing balance: 1,024.00 EUR", { x: 60, y: 620, size: 11, font });
    second.drawText("Questions? Write to help@bank.example", { x: 60, y: 80, size: 9, font });
    const source = await doc.save();
    const done = await convert(await uploadPdf(source, "statement.pdf"));
    expect(done.status).toBe("succeeded");
    expect(done.sampleData).toEqual({ opened: "2026-03-01", closingBalance: "1,024.00 EUR", questionsWriteTo: "help@bank.example" });
    const again = await renderPdf({ templateId: done.templateId, data: done.sampleData, test: true });
    const info = poppler(again, (f) => ["pdfinfo", f]);
    expect(info).toMatch(/Pages:\s+2\n/);
    const [width, height] = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(info)!.slice(1).map(Number);
    expect(Math.abs(width! - 500)).toBeLessThan(1);
    expect(Math.abs(height! - 700)).toBeLessThan(1);
    const before = pdfWords(source);
    const after = pdfWords(again);
    const pairs = commonWords(before, after);
    expect(pairs).toHaveLength(before.length);
    for (const [i, j] of pairs) {
      expect({ word: before[i]!.text, page: after[j]!.page }).toEqual({ word: before[i]!.text, page: before[i]!.page });
      expect(Math.abs(after[j]!.xMin - before[i]!.xMin)).toBeLessThan(3);
      expect(Math.abs(after[j]!.yMin - before[i]!.yMin)).toBeLessThan(3);
    }
  });
});

/** scanned makes a one-page PDF that is only a picture, as a scanner makes. */
async function scanned(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  page.drawImage(await doc.embedPng(PNG), { x: 0, y: 0, width: 595, height: 842 });
  return await doc.save();
}

describe("PDFs that cannot be converted", () => {
  test("a scanned (image-only) PDF fails with an error that says what to do", async () => {
    const failed = await convert(await uploadPdf(await scanned(), "scan.pdf"));
    expect(failed).toMatchObject({ status: "failed", finishedAt: expect.any(String) });
    expect(failed.error).toContain("images only");
    expect(failed.error).toContain("OCR");
    expect(failed.templateId).toBeUndefined();
    const events = ok(await t.call(`/v1/audit-events?resourceId=${failed.id}&action=template_conversion.failed`, { key }), 200).items;
    expect(events[0].metadata.error).toBe(failed.error);
  });

  test("a PDF with no page content fails, and so does a file that is no PDF at all", async () => {
    expect((await convert(await uploadPdf(PDF, "empty.pdf"))).error).toContain("no text to convert");
    const broken = await convert(await uploadPdf(new TextEncoder().encode("%PDF-1.4\nnot really a pdf\n"), "broken.pdf"));
    expect(broken.status).toBe("failed");
    expect(broken.error).toContain("could not be read as a PDF");
  });
});

describe("an asset deleted while its conversion waits", () => {
  test("the conversion fails and says to upload the PDF again", async () => {
    const asset = await uploadPdf(await invoice(), "gone.pdf");
    await t.server.conversions.stop();
    let id: string;
    try {
      id = ok(await t.call("/v1/template-conversions", { key, body: { assetId: asset } }), 202).id;
      ok(await t.call(`/v1/assets/${asset}`, { key, method: "DELETE" }), 200);
    } finally {
      await t.server.conversions.start();
    }
    await t.server.conversions.idle();
    const failed = ok(await t.call(`/v1/template-conversions/${id!}`, { key }), 200);
    expect(failed).toMatchObject({ status: "failed", error: `Asset ${asset} was deleted before it could be converted; upload the PDF again.` });
  });
});

describe("refusals", () => {
  test("an asset that is not a PDF: 422 ASSET_INVALID at /assetId", async () => {
    const png = (await uploadSample(t, key, { kind: "image", mediaType: "image/png", filename: "pixel.png", bytes: PNG })).id;
    const res = await t.call("/v1/template-conversions", { key, body: { assetId: png } });
    expect(ok(res, 422).error).toMatchObject({ code: "ASSET_INVALID", details: [{ path: "/assetId", message: "is a image asset, not a pdf" }] });
  });

  test("an asset registered but not uploaded: 422 ASSET_INVALID", async () => {
    const reg = ok(await t.call("/v1/assets", { key, body: { kind: "pdf", filename: "later.pdf", mediaType: "application/pdf", size: 10, sha256: "a".repeat(64) } }), 201);
    expect(ok(await t.call("/v1/template-conversions", { key, body: { assetId: reg.id } }), 422).error.code).toBe("ASSET_INVALID");
  });

  test("an unknown asset, and another workspace's PDF: 404 NOT_FOUND alike", async () => {
    expect(ok(await t.call("/v1/template-conversions", { key, body: { assetId: "ast_nothing" } }), 404).error).toMatchObject({ code: "NOT_FOUND", details: [{ path: "/assetId" }] });
    const other = await t.makeWorkspace("Elsewhere");
    const otherKey = await t.makeKey(other.id, [...SCOPES]);
    const theirs = await uploadPdf(await invoice(), "theirs.pdf", otherKey);
    expect(ok(await t.call("/v1/template-conversions", { key, body: { assetId: theirs } }), 404).error.code).toBe("NOT_FOUND");
    // Their conversion is not ours to read either.
    const conversion = ok(await t.call("/v1/template-conversions", { key: otherKey, body: { assetId: theirs } }), 202);
    await t.server.conversions.idle();
    expect(ok(await t.call(`/v1/template-conversions/${conversion.id}`, { key }), 404).error.code).toBe("NOT_FOUND");
    expect(ok(await t.call("/v1/template-conversions?limit=100", { key }), 200).items.map((c: any) => c.id)).not.toContain(conversion.id);
  });

  test("a bad body: 400 BAD_REQUEST with the path; no template:write: 403; no key: 401", async () => {
    expect(ok(await t.call("/v1/template-conversions", { key, body: {} }), 400).error.details[0].path).toBe("/assetId");
    expect(ok(await t.call("/v1/template-conversions", { key, body: { assetId: "ast_x", name: "extra" } }), 400).error.code).toBe("BAD_REQUEST");
    const reader = await t.makeKey(t.defaultWorkspaceId, ["template:read"]);
    expect(ok(await t.call("/v1/template-conversions", { key: reader, body: { assetId: "ast_x" } }), 403).error.code).toBe("FORBIDDEN");
    expect(ok(await t.call("/v1/template-conversions", { body: { assetId: "ast_x" } }), 401).error.code).toBe("UNAUTHORIZED");
    expect(ok(await t.call("/v1/template-conversions/tcv_unknown", { key }), 404).error.code).toBe("NOT_FOUND");
  });
});

describe("the templateConversionsPerMonth allowance (spec 2.2, 2.3)", () => {
  test("every conversion counts from its creation, failed ones too; one over the allowance is 429 QUOTA_EXCEEDED", async () => {
    const ws = await t.makeWorkspace("Quota");
    const wsKey = await t.makeKey(ws.id, [...SCOPES]);
    ok(await t.call(`/v1/companies/${ws.id}/allowances`, { method: "PUT", cookie: admin, body: { maxActiveRenders: 10, rendersPerMinute: 60, templateConversionsPerMonth: 2 } }), 200);
    const counter = async () => ok(await t.call("/v1/render-limits", { key: wsKey }), 200).templateConversionsThisMonth;
    expect(await counter()).toBe(0);
    const pdf = await uploadPdf(await invoice(), "quota.pdf", wsKey);
    // Counted while it waits, before the runner has looked at it (spec 2.3: "including one in progress").
    await t.server.conversions.stop();
    try {
      ok(await t.call("/v1/template-conversions", { key: wsKey, body: { assetId: pdf } }), 202);
      expect(await counter()).toBe(1);
    } finally {
      await t.server.conversions.start();
    }
    expect((await convert(await uploadPdf(await scanned(), "scan.pdf", wsKey), wsKey)).status).toBe("failed");
    expect(await counter()).toBe(2);
    const refused = ok(await t.call("/v1/template-conversions", { key: wsKey, body: { assetId: pdf } }), 429).error;
    expect(refused).toMatchObject({ code: "QUOTA_EXCEEDED", retryable: false, message: expect.stringContaining("2 of its 2") });
    expect(await counter()).toBe(2);
    // The count is per calendar month (UTC).
    t.clock.set(new Date(Date.UTC(t.clock.now().getUTCFullYear(), t.clock.now().getUTCMonth() + 1, 1, 0, 0, 1)));
    expect(await counter()).toBe(0);
    expect((await convert(pdf, wsKey)).status).toBe("succeeded");
    expect(await counter()).toBe(1);
  });
});

describe("a restart", () => {
  test("a conversion left processing is converted again; one interrupted twice fails with a clear error", async () => {
    const pdf = await uploadPdf(await invoice(), "restart.pdf");
    const first = await convert(pdf);
    const second = await convert(pdf);
    // As a crash would leave them: mid-conversion, with no template yet.
    const reset = "UPDATE template_conversions SET status = 'processing', template_id = NULL, sample_data = NULL, finished_at = NULL, attempts = $attempts WHERE id = $id";
    await t.server.store.tx((tx) => tx.run(reset, { id: first.id, attempts: 1 }));
    await t.server.store.tx((tx) => tx.run(reset, { id: second.id, attempts: 2 }));
    await t.restart();
    await t.server.conversions.idle();
    const again = ok(await t.call(`/v1/template-conversions/${first.id}`, { key }), 200);
    expect(again).toMatchObject({ status: "succeeded", templateId: expect.stringMatching(/^tpl_/) });
    expect(again.templateId).not.toBe(first.templateId);
    const failed = ok(await t.call(`/v1/template-conversions/${second.id}`, { key }), 200);
    expect(failed).toMatchObject({ status: "failed", error: expect.stringContaining("interrupted 2 times") });
    expect((await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM template_conversions WHERE status IN ('queued', 'processing')"))!.n).toBe(0);
  });
});

describe("names from a model (TEMPLATE_CONVERTER_URL)", () => {
  test("a chat endpoint's answer renames fields, the table and a column, and groups rows into a table; what it gets wrong is left alone", async () => {
    const asked: any[] = [];
    // One fixed answer for every question: its groups fit the team list below, and are ignored for the invoice
    // (lines 2 to 4 of the invoice are lines of one cell).
    const answer = {
      groups: [[2, 3, 4]],
      fields: { invoiceNumber: "documentNumber", issued: "issueDate", due: "not a name", email: "issueDate" },
      tables: { items: { name: "lines", columns: { unitPrice: "price", qty: "quantity" } } },
    };
    const model = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        asked.push({ path: new URL(request.url).pathname, body: await request.json() });
        return Response.json({ choices: [{ message: { role: "assistant", content: "```json\n" + JSON.stringify(answer) + "\n```" } }] });
      },
    });
    const withModel = await startTestServer({ RENDER_WORKERS: "1", TEMPLATE_CONVERTER_URL: `http://127.0.0.1:${model.port}/v1`, TEMPLATE_CONVERTER_MODEL: "tiny-namer" });
    try {
      const modelKey = await withModel.makeKey(withModel.defaultWorkspaceId, [...SCOPES]);
      const asset = (await uploadSample(withModel, modelKey, { kind: "pdf", mediaType: "application/pdf", filename: "invoice.pdf", bytes: (await invoice()) as Uint8Array<ArrayBuffer> })).id;
      const done = await convert(asset, modelKey, withModel);
      expect(done.status).toBe("succeeded");
      expect(asked).toHaveLength(1);
      expect(asked[0].path).toBe("/v1/chat/completions");
      expect(asked[0].body.model).toBe("tiny-namer");
      expect(JSON.parse(asked[0].body.messages[1].content).fields.map((f: any) => f.name)).toEqual(["invoiceNumber", "issued", "due", "email", "totalDue"]);
      expect(Object.keys(done.sampleData).sort()).toEqual(["documentNumber", "due", "email", "issueDate", "lines", "totalDue"]);
      expect(done.sampleData.lines[0]).toEqual({ description: "Consulting hours", quantity: "12", price: "$150.00", amount: "$1,800.00" });
      const template = ok(await withModel.call(`/v1/templates/${done.templateId}`, { key: modelKey }), 200);
      expect(Object.keys(template.draft.dataSchema.properties).sort()).toEqual(Object.keys(done.sampleData).sort());

      // Rows without numbers: a table only because the model grouped them.
      const doc = await PDFDocument.create();
      const font = await doc.embedFont(StandardFonts.Helvetica);
      const page = doc.addPage([595, 842]);
      const lines = [["Team"], ["Name", "Role"], ["Ann Lee", "Writer"], ["Bo Chen", "Editor"], ["Cy Diaz", "Designer"]];
      lines.forEach((cells, i) => cells.forEach((text, c) => page.drawText(text, { x: 60 + c * 200, y: 780 - i * 20, size: 11, font })));
      const teamAsset = (await uploadSample(withModel, modelKey, { kind: "pdf", mediaType: "application/pdf", filename: "team.pdf", bytes: new Uint8Array(await doc.save()) })).id;
      const team = await convert(teamAsset, modelKey, withModel);
      expect(JSON.parse(asked[1].body.messages[1].content).lines.map((l: any) => l.index)).toEqual([1, 2, 3, 4]);
      // The same answer names this table too: items → lines.
      expect(team.sampleData).toEqual({ lines: [{ name: "Ann Lee", role: "Writer" }, { name: "Bo Chen", role: "Editor" }, { name: "Cy Diaz", role: "Designer" }] });
      const words = pdfWords(await renderPdf({ templateId: team.templateId, data: team.sampleData, test: true }, modelKey, withModel)).map((w) => w.text);
      expect(words).toEqual(["Team", "Name", "Role", "Ann", "Lee", "Writer", "Bo", "Chen", "Editor", "Cy", "Diaz", "Designer"]);
    } finally {
      await withModel.stop();
      model.stop(true);
    }
  });

  test("a model that does not answer leaves the offline names", async () => {
    const model = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("overloaded", { status: 503 }) });
    const withModel = await startTestServer({ RENDER_WORKERS: "1", TEMPLATE_CONVERTER_URL: `http://127.0.0.1:${model.port}/v1` });
    try {
      const modelKey = await withModel.makeKey(withModel.defaultWorkspaceId, [...SCOPES]);
      const asset = (await uploadSample(withModel, modelKey, { kind: "pdf", mediaType: "application/pdf", filename: "invoice.pdf", bytes: (await invoice()) as Uint8Array<ArrayBuffer> })).id;
      const done = await convert(asset, modelKey, withModel);
      expect(done.status).toBe("succeeded");
      expect(done.sampleData.invoiceNumber).toBe("INV-2026-0042");
    } finally {
      await withModel.stop();
      model.stop(true);
    }
  });
});
