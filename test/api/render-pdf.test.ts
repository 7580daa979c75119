/**
 * render-pdf: the `pdf` options of renders and templates end to end (issue 13, docs/pdf.md) — real renders through the
 * real server and Chromium pool, read back with poppler (pdfinfo, pdftotext, pdfdetach): tags and outline, metadata,
 * appended PDF assets, the TEST mark on test renders only, a template's default under the render's own options,
 * PDF/A, and every 4xx.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { PDFDocument, PDFName, StandardFonts } from "pdf-lib";
import { ok, startTestServer, type TestServer } from "../harness";
import { local, PNG, uploadSample } from "../fixtures/assets";
import { poppler } from "../render/poppler";
import { PRODUCER } from "../../src/render/metadata";

let t: TestServer;
let key: string;
let terms: string; // an uploaded two-page PDF: "Terms 1", "Terms 2"
let cover: string; // an uploaded one-page PDF: "Cover"
let png: string;

async function pdfOf(...texts: string[]): Promise<Uint8Array<ArrayBuffer>> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of texts) doc.addPage([595, 842]).drawText(text, { x: 50, y: 700, size: 20, font });
  return new Uint8Array(await doc.save());
}

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1" });
  key = await t.makeKey(t.defaultWorkspaceId, ["template:read", "template:write", "template:publish", "render:create", "render:read", "asset:manage"]);
  terms = (await uploadSample(t, key, { kind: "pdf", mediaType: "application/pdf", filename: "terms.pdf", bytes: await pdfOf("Terms 1", "Terms 2") })).id;
  cover = (await uploadSample(t, key, { kind: "pdf", mediaType: "application/pdf", filename: "cover.pdf", bytes: await pdfOf("Cover") })).id;
  png = (await uploadSample(t, key, { kind: "image", mediaType: "image/png", filename: "pixel.png", bytes: PNG })).id;
});
afterAll(() => t.stop());

// Real and test renders are allowed 60 and 10 a minute on the manual clock: every test starts in a fresh minute.
beforeEach(() => t.clock.advance(61_000));


const HTML = "<h1>Invoice 42</h1><p>Amount due</p><h2>Lines</h2><p>one line</p>";

/** render creates a render with ?wait, expects it to succeed and answers it with its downloaded PDF. */
async function render(body: Record<string, unknown>): Promise<{ render: any; pdf: Uint8Array }> {
  const r = ok(await t.call("/v1/renders?wait=30", { key, body }), 200);
  expect(r.status).toBe("succeeded");
  const res = await fetch(local(t, r.result.downloadUrl));
  return { render: r, pdf: new Uint8Array(await res.arrayBuffer()) };
}

const info = (pdf: Uint8Array) => poppler(pdf, (f) => ["pdfinfo", f]);
const pageText = (pdf: Uint8Array, page: number) => poppler(pdf, (f) => ["pdftotext", "-raw", "-f", `${page}`, "-l", `${page}`, f, "-"]).replace(/\s+/g, " ").trim();
const marked = (pdf: Uint8Array, page: number) => pageText(pdf, page).replace(/\s/g, "").includes("TEST");

describe("tags, outline and metadata", () => {
  test("tagged: pdfinfo says Tagged: yes, with the document language; outline: a bookmark outline from the headings", async () => {
    const { pdf } = await render({ html: HTML, pdf: { tagged: true, outline: true, metadata: { language: "de-CH" } } });
    expect(info(pdf)).toMatch(/Tagged:\s+yes/);
    const doc = await PDFDocument.load(pdf);
    expect(String(doc.catalog.get(PDFName.of("Lang")))).toBe("(de-CH)");
    expect(doc.catalog.get(PDFName.of("Outlines"))).toBeDefined();
  });

  test("without options the PDF is untagged, has no outline, and its title is the render's filename", async () => {
    const { pdf } = await render({ html: HTML, filename: "invoice-42.pdf" });
    expect(info(pdf)).toMatch(/Tagged:\s+no/);
    expect(info(pdf)).toContain("Title:           invoice-42.pdf");
    expect(info(pdf)).toContain(`Producer:        ${PRODUCER}`);
    expect((await PDFDocument.load(pdf)).catalog.get(PDFName.of("Outlines"))).toBeUndefined();
    // Chromium's file with the metadata appended as an incremental update (render/metadata.ts), structurally sound.
    expect(Buffer.from(pdf).toString("latin1").match(/%%EOF/g)).toHaveLength(2);
    expect(poppler(pdf, (f) => ["qpdf", "--check", f])).toContain("No syntax or stream encoding errors");
  });

  test("metadata sets the information dictionary and the XMP", async () => {
    const metadata = { title: "Invoice 42", author: "ACME Ltd", subject: "Your invoice", keywords: ["invoice", "acme"], language: "en" };
    const { pdf } = await render({ html: HTML, pdf: { metadata } });
    const text = info(pdf);
    for (const line of ["Title:           Invoice 42", "Author:          ACME Ltd", "Subject:         Your invoice", `Producer:        ${PRODUCER}`]) expect(text).toContain(line);
    const xmp = poppler(pdf, (f) => ["pdfinfo", "-meta", f]);
    expect(xmp).toContain('<rdf:li xml:lang="x-default">Invoice 42</rdf:li>');
    expect(xmp).toContain("<pdf:Keywords>invoice, acme</pdf:Keywords>");
  });
});

describe("attachAssetIds", () => {
  test("the PDF assets follow the rendered page in order, and result.pages counts them", async () => {
    const { render: r, pdf } = await render({ html: HTML, pdf: { attachAssetIds: [terms, cover] } });
    expect(r.result.pages).toBe(4);
    expect(info(pdf)).toMatch(/Pages:\s+4/);
    expect(pageText(pdf, 1)).toContain("Invoice 42");
    expect([2, 3, 4].map((p) => pageText(pdf, p))).toEqual(["Terms 1", "Terms 2", "Cover"]);
  });
});

describe("the TEST mark", () => {
  test("a test render carries TEST on every rendered page, an appended one does not; a real render never does", async () => {
    const html = `${HTML}<div style="page-break-before:always">second page</div>`;
    const testRender = await render({ html, test: true, pdf: { attachAssetIds: [cover] } });
    expect(testRender.render.result.pages).toBe(3);
    expect([1, 2, 3].map((p) => marked(testRender.pdf, p))).toEqual([true, true, false]);
    const real = await render({ html });
    expect([1, 2].map((p) => marked(real.pdf, p))).toEqual([false, false]);
  });

  test("a template's draft and its preview are marked; a published version rendered for real is not", async () => {
    const template = ok(await t.call("/v1/templates", { key, body: { name: "Marked", content: { type: "text", text: "Hello" } } }), 201);
    expect(marked((await render({ templateId: template.id, test: true })).pdf, 1)).toBe(true);
    const preview = await fetch(`${t.url}/v1/templates/${template.id}/preview`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: "{}",
    });
    expect([preview.status, preview.headers.get("content-type")]).toEqual([200, "application/pdf"]);
    expect(marked(new Uint8Array(await preview.arrayBuffer()), 1)).toBe(true);
    ok(await t.call(`/v1/templates/${template.id}/publish`, { key, method: "POST" }), 201);
    expect(marked((await render({ templateId: template.id })).pdf, 1)).toBe(false);
  });
});

describe("template defaults", () => {
  test("a template's pdf is the default of its renders; the render's own fields win, metadata field by field", async () => {
    const pdf = { tagged: true, metadata: { title: "From the template", author: "Template author" }, attachAssetIds: [cover] };
    const template = ok(await t.call("/v1/templates", { key, body: { name: "Defaults", content: { type: "text", text: "Body" }, pdf } }), 201);
    expect(template.draft.pdf).toEqual(pdf);
    ok(await t.call(`/v1/templates/${template.id}/publish`, { key, method: "POST" }), 201);
    const inherited = await render({ templateId: template.id });
    expect(info(inherited.pdf)).toContain("Title:           From the template");
    expect(info(inherited.pdf)).toMatch(/Tagged:\s+yes/);
    expect(inherited.render.result.pages).toBe(2);
    const own = await render({ templateId: template.id, pdf: { metadata: { title: "From the render" }, attachAssetIds: [] } });
    expect(info(own.pdf)).toContain("Title:           From the render");
    expect(info(own.pdf)).toContain("Author:          Template author");
    expect(own.render.result.pages).toBe(1);
    const cleared = ok(await t.call(`/v1/templates/${template.id}`, { key, method: "PATCH", body: { pdf: null } }), 200);
    expect(cleared.draft.pdf).toBeUndefined();
  });
});

describe("standard", () => {
  test("PDF/A-3b with an embedded file: pdfaid part 3 in the XMP, the file listed by pdfdetach", async () => {
    const body = { html: HTML, pdf: { standard: "PDF/A-3b", metadata: { title: "Archived" }, embeddedFiles: [{ assetId: cover, name: "cover.pdf", relationship: "Supplement" }] } };
    const { pdf } = await render(body);
    expect(poppler(pdf, (f) => ["pdfinfo", "-meta", f])).toContain("<pdfaid:part>3</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance>");
    expect(poppler(pdf, (f) => ["pdfdetach", "-list", f])).toContain("1: cover.pdf");
    expect(info(pdf)).toContain("Title:           Archived");
    expect(pageText(pdf, 1)).toContain("Invoice 42");
  });
});

describe("batch merge", () => {
  /** settled creates a batch and waits until every item has ended; answers the batch id and the items. */
  async function settled(body: Record<string, unknown>): Promise<{ batchId: string; items: any[] }> {
    const batch = ok(await t.call("/v1/renders/batch", { key, body }), 202);
    const items: any[] = [];
    for (const item of batch.items) {
      let r = item;
      for (let i = 0; i < 300 && (r.status === "queued" || r.status === "processing"); i++) {
        await Bun.sleep(100);
        r = ok(await t.call(`/v1/renders/${item.id}`, { key }), 200);
      }
      items.push(r);
    }
    return { batchId: batch.batchId, items };
  }

  async function merged(batchId: string): Promise<Response> {
    return fetch(`${t.url}/v1/renders/batch/${batchId}/merged`, { headers: { "x-api-key": key } });
  }

  test("merge: true gives one PDF of the items, in item order, once all have succeeded", async () => {
    const { batchId, items } = await settled({ merge: true, items: [{ html: "<p>First item</p>" }, { html: "<p>Second item</p>", pdf: { attachAssetIds: [cover] } }, { html: "<p>Third item</p>" }] });
    expect(items.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    const res = await merged(batchId);
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "application/pdf"]);
    const pdf = new Uint8Array(await res.arrayBuffer());
    expect(info(pdf)).toMatch(/Pages:\s+4/);
    expect([1, 2, 3, 4].map((p) => pageText(pdf, p))).toEqual(["First item", "Second item", "Cover", "Third item"]);
  });

  test("no such batch is 404; a batch without merge, or with an item that failed, is 409", async () => {
    const missing = await merged("bat_nope");
    expect([missing.status, ((await missing.json()) as any).error.code]).toEqual([404, "NOT_FOUND"]);
    const plain = await settled({ items: [{ html: "<p>x</p>" }] });
    const notMerged = await merged(plain.batchId);
    expect([notMerged.status, ((await notMerged.json()) as any).error.message]).toEqual([409, expect.stringContaining("merge: true")]);
    const failing = await settled({ merge: true, items: [{ html: "<p>ok</p>" }, { html: '<img src="https://example.com/x.png">', failOnBlockedResources: true }] });
    expect(failing.items.map((r) => r.status)).toEqual(["succeeded", "failed"]);
    const failed = await merged(failing.batchId);
    expect([failed.status, ((await failed.json()) as any).error.message]).toEqual([409, expect.stringContaining("has failed")]);
  });
});

describe("4xx", () => {
  async function refused(body: Record<string, unknown>, status: number, code: string, path: string, path2 = "/v1/renders"): Promise<any> {
    const res = await t.call(path2, { key, body });
    expect([res.status, res.body.error?.code]).toEqual([status, code]);
    expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
    return res.body.error;
  }

  test("an unknown asset, or an asset that is not a PDF, in attachAssetIds is 422 ASSET_INVALID at its pointer", async () => {
    await refused({ html: HTML, pdf: { attachAssetIds: ["ast_nope"] } }, 422, "ASSET_INVALID", "/pdf/attachAssetIds/0");
    const error = await refused({ html: HTML, pdf: { attachAssetIds: [cover, png] } }, 422, "ASSET_INVALID", "/pdf/attachAssetIds/1");
    expect(error.details[0].message).toContain("only PDF assets can be appended");
    await refused({ items: [{ html: HTML }, { html: HTML, pdf: { attachAssetIds: ["ast_nope"] } }] }, 422, "ASSET_INVALID", "/items/1/pdf/attachAssetIds/0", "/v1/renders/batch");
  });

  test("an unknown embedded file asset is 422; embedded files in PDF/A-2b are 400", async () => {
    await refused({ html: HTML, pdf: { standard: "PDF/A-3b", embeddedFiles: [{ assetId: "ast_nope", name: "x.xml" }] } }, 422, "ASSET_INVALID", "/pdf/embeddedFiles/0/assetId");
    await refused({ html: HTML, pdf: { standard: "PDF/A-2b", embeddedFiles: [{ assetId: cover, name: "x.pdf" }] } }, 400, "BAD_REQUEST", "/pdf/embeddedFiles");
  });

  test("a bad standard, language, relationship or unknown field is 400 BAD_REQUEST at its pointer", async () => {
    await refused({ html: HTML, pdf: { standard: "PDF/A-1b" } }, 400, "BAD_REQUEST", "/pdf/standard");
    await refused({ html: HTML, pdf: { metadata: { language: "not a tag" } } }, 400, "BAD_REQUEST", "/pdf/metadata/language");
    await refused({ html: HTML, pdf: { embeddedFiles: [{ assetId: cover, name: "a.pdf", relationship: "Owner" }] } }, 400, "BAD_REQUEST", "/pdf/embeddedFiles/0/relationship");
    await refused({ html: HTML, pdf: { colour: true } }, 400, "BAD_REQUEST", "/pdf/colour");
    await refused({ name: "Bad", content: { type: "text", text: "x" }, pdf: { tagged: "yes" } }, 400, "BAD_REQUEST", "/pdf/tagged", "/v1/templates");
  });

  test("a template whose default appends an unknown asset or one that is not a PDF is 422 TEMPLATE_INVALID when saved", async () => {
    const error = await refused({ name: "Bad attachments", content: { type: "text", text: "x" }, pdf: { attachAssetIds: ["ast_nope", png] } }, 422, "TEMPLATE_INVALID", "/pdf/attachAssetIds/0", "/v1/templates");
    expect(error.details).toEqual([
      { path: "/pdf/attachAssetIds/0", message: "asset ast_nope was not found" },
      { path: "/pdf/attachAssetIds/1", message: `asset ${png} is a image asset; pdf.attachAssetIds takes PDF assets` },
    ]);
  });

  test("a template keeps no password: a default pdf.password is 400 at /pdf/password (a render gives its own)", async () => {
    await refused({ name: "Locked", content: { type: "text", text: "x" }, pdf: { password: { owner: "o" } } }, 400, "BAD_REQUEST", "/pdf/password", "/v1/templates");
  });
});
