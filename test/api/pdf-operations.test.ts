/**
 * pdf-operations: POST /v1/pdf-operations end to end (issue 30, docs/pdf.md "Operations on PDFs") — every operation
 * on PDFs made here and uploaded as assets (or a render's PDF), run by the real server's queue and worker, and read
 * back with qpdf, pdfinfo, pdftotext and pdfsig; the form made with pdf-lib is filled and read back with qpdf --json;
 * and every bad input has its answer.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { ok, startTestServer, type TestServer } from "../harness";
import { local, PNG, uploadSample } from "../fixtures/assets";
import { poppler } from "../render/poppler";
import { makePkcs12 } from "../pdf/certs";
import { encodePng } from "../../src/pdf/rasterize";
import { encryptPdf } from "../../src/pdf/encrypt";
import { RECEIVER_ENV, type Receiver } from "../webhooks/receiver";
import { subscribeToEnds } from "../webhooks/subscribe";

let t: TestServer;
let key: string;
let ends: Receiver;
const ids: Record<string, string> = {};

async function pdfOf(...texts: string[]): Promise<Uint8Array<ArrayBuffer>> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of texts) doc.addPage([595, 842]).drawText(text, { x: 50, y: 700, size: 20, font });
  return new Uint8Array(await doc.save());
}

/** formPdf is a real AcroForm: a text field, a check box, a dropdown and a radio group. */
async function formPdf(): Promise<Uint8Array<ArrayBuffer>> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const form = doc.getForm();
  form.createTextField("name").addToPage(page, { x: 50, y: 700, width: 200, height: 24 });
  form.createCheckBox("agree").addToPage(page, { x: 50, y: 650, width: 16, height: 16 });
  const country = form.createDropdown("country");
  country.addOptions(["DE", "FR"]);
  country.addToPage(page, { x: 50, y: 600, width: 100, height: 24 });
  const size = form.createRadioGroup("size");
  size.addOptionToPage("S", page, { x: 50, y: 550, width: 16, height: 16 });
  size.addOptionToPage("M", page, { x: 80, y: 550, width: 16, height: 16 });
  return new Uint8Array(await doc.save());
}

/** photoPdf holds a 1200 × 1200 noise image shown 2 inches wide (600 dpi): compress downsamples it. */
async function photoPdf(): Promise<Uint8Array<ArrayBuffer>> {
  const side = 1200;
  const header = new TextEncoder().encode(`P6\n${side} ${side}\n255\n`);
  const pixels = new Uint8Array(side * side * 3);
  for (let i = 0; i < pixels.length; i += 4096) crypto.getRandomValues(pixels.subarray(i, i + 4096));
  const ppm = new Uint8Array(header.length + pixels.length);
  ppm.set(header);
  ppm.set(pixels, header.length);
  const doc = await PDFDocument.create();
  const image = await doc.embedPng(await encodePng(ppm));
  doc.addPage([595, 842]).drawImage(image, { x: 50, y: 500, width: 144, height: 144 });
  return new Uint8Array(await doc.save());
}

const pdfAsset = async (name: string, bytes: Uint8Array<ArrayBuffer>) => (await uploadSample(t, key, { kind: "pdf", mediaType: "application/pdf", filename: name, bytes })).id as string;

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1", ...RECEIVER_ENV });
  t.clock.set(new Date(Date.now() + 10 * 60_000));
  key = await t.makeKey(t.defaultWorkspaceId, ["render:create", "render:read", "asset:manage", "certificate:manage"]);
  // A render's end event is written for the endpoints that receive it: this one makes the merge's end a row.
  ends = await subscribeToEnds(t, t.defaultWorkspaceId);
  ids.three = await pdfAsset("three.pdf", await pdfOf("Page 1", "Page 2", "Page 3"));
  ids.two = await pdfAsset("two.pdf", await pdfOf("Other A", "Other B"));
  ids.form = await pdfAsset("form.pdf", await formPdf());
  ids.photo = await pdfAsset("photo.pdf", await photoPdf());
  ids.locked = await pdfAsset("locked.pdf", new Uint8Array(await encryptPdf(await pdfOf("Secret"), { user: "open", owner: "own" })));
  ids.damaged = await pdfAsset("damaged.pdf", new TextEncoder().encode("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n") as Uint8Array<ArrayBuffer>);
  ids.png = (await uploadSample(t, key, { kind: "image", mediaType: "image/png", filename: "dot.png", bytes: PNG })).id;
  ids.xml = (await uploadSample(t, key, { kind: "pdf", mediaType: "text/xml", filename: "x.xml", bytes: new TextEncoder().encode("<a/>") as Uint8Array<ArrayBuffer> })).id;
});
afterAll(async () => {
  ends.stop();
  await t.stop();
});
beforeEach(() => t.clock.advance(61_000));

/** run asks for an operation, waits for it and answers it with its result's PDF (and a split's parts). */
async function run(body: Record<string, unknown>): Promise<{ op: any; pdf: Uint8Array; parts: Uint8Array[] }> {
  const op = ok(await t.call("/v1/pdf-operations?wait=30", { key, body }), 200);
  expect(op.status).toBe("succeeded");
  const get = async (url: string) => new Uint8Array(await (await fetch(local(t, url))).arrayBuffer());
  return { op, pdf: await get(op.result.downloadUrl), parts: await Promise.all((op.result.outputs ?? []).map((o: any) => get(o.downloadUrl))) };
}

const info = (pdf: Uint8Array, ...args: string[]) => poppler(pdf, (f) => ["pdfinfo", ...args, f]);
const text = (pdf: Uint8Array, page?: number) =>
  poppler(pdf, (f) => ["pdftotext", "-raw", ...(page ? ["-f", `${page}`, "-l", `${page}`] : []), f, "-"]).replace(/\s+/g, " ").trim();
const qpdfJson = (pdf: Uint8Array) => JSON.parse(poppler(pdf, (f) => ["qpdf", "--json", f]));
const check = (pdf: Uint8Array) => expect(poppler(pdf, (f) => ["qpdf", "--check", f])).toContain("No syntax or stream encoding errors");

describe("operations", () => {
  test("merge: the inputs' pages in order, a bookmark per input at its first page, counted as a document", async () => {
    const before = ok(await t.call("/v1/render-limits", { key }), 200).documentsThisMonth;
    const { op, pdf } = await run({ operation: "merge", inputs: [{ assetId: ids.three, title: "Three pages" }, { assetId: ids.two }] });
    expect(op.id).toMatch(/^pdo_/);
    expect(op.result.pages).toBe(5);
    expect(info(pdf)).toMatch(/Pages:\s+5/);
    expect(text(pdf)).toBe("Page 1 Page 2 Page 3 Other A Other B");
    const outline = qpdfJson(pdf).outlines as { title: string; destpageposfrom1: number }[];
    expect(outline.map((o) => [o.title, o.destpageposfrom1])).toEqual([["Three pages", 1], ["two.pdf", 4]]);
    check(pdf);
    expect(ok(await t.call("/v1/render-limits", { key }), 200).documentsThisMonth).toBe(before + 1);
    // Announced as a render's end is, under its own id.
    expect((await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_events WHERE render_id = $id AND type = 'render.succeeded'", { id: op.id }))!.n).toBe(1);
    const noMarks = await run({ operation: "merge", inputs: [{ assetId: ids.three }, { assetId: ids.two }], bookmarks: false });
    expect(qpdfJson(noMarks.pdf).outlines).toEqual([]);
  });

  test("split: one PDF per range, each at its own signed address", async () => {
    const { op, parts } = await run({ operation: "split", inputs: [{ assetId: ids.three }], ranges: ["1-2", "3", "2-", "3"] });
    expect(op.result.outputs.map((o: any) => o.pages)).toEqual([2, 1, 2, 1]);
    expect(parts.map((p) => text(p))).toEqual(["Page 1 Page 2", "Page 3", "Page 2 Page 3", "Page 3"]);
    // Two equal parts are one stored file, held once.
    expect(Buffer.from(parts[3]!).equals(Buffer.from(parts[1]!))).toBe(true);
    parts.forEach(check);
    expect((await fetch(local(t, op.result.outputs[0].downloadUrl.replace(/token=\d+\./, "token=9.")))).status).toBe(403);
    expect((await fetch(local(t, op.result.outputs[3].downloadUrl.replace("/outputs/3?", "/outputs/4?")))).status).toBe(404);
  });

  test("rotate: the pages named turn by the angle, the others stay; a render's PDF is an input too", async () => {
    const { pdf } = await run({ operation: "rotate", inputs: [{ assetId: ids.three }], pages: [1, 3], angle: 90 });
    const turns = info(pdf, "-f", "1", "-l", "3").match(/rot:\s+\d+/g)!.map((r) => r.replace(/\s+/, " "));
    expect(turns).toEqual(["rot: 90", "rot: 0", "rot: 90"]);
    const render = ok(await t.call("/v1/renders?wait=30", { key, body: { html: "<p>Rendered</p>" } }), 200);
    const turned = await run({ operation: "rotate", inputs: [{ renderId: render.id }], angle: 180 });
    expect(info(turned.pdf, "-f", "1", "-l", "1")).toMatch(/rot:\s+180/);
    expect(text(turned.pdf)).toBe("Rendered");
  });

  test("stamp and watermark: text on the pages named (or all), an image too", async () => {
    const stamped = await run({ operation: "stamp", inputs: [{ assetId: ids.three }], text: "PAID", pages: [2], position: "bottom-left" });
    expect([1, 2, 3].map((p) => text(stamped.pdf, p).includes("PAID"))).toEqual([false, true, false]);
    const marked = await run({ operation: "watermark", inputs: [{ assetId: ids.three }], text: "DRAFT", opacity: 0.2 });
    // Drawn at 45°, the letters come out of pdftotext one by one.
    expect([1, 2, 3].every((p) => text(marked.pdf, p).replace(/\s/g, "").includes("DRAFT"))).toBe(true);
    check(marked.pdf);
    const logo = await run({ operation: "stamp", inputs: [{ assetId: ids.two }], assetId: ids.png, width: 40 });
    expect(poppler(logo.pdf, (f) => ["pdfimages", "-list", f])).toMatch(/\n\s+1\s+0\s+image\s+1\s+1/);
  });

  test("fill: a real AcroForm's fields by name, read back with qpdf --json; flatten then draws them into the page", async () => {
    const listed = ok(await t.call(`/v1/assets/${ids.form}/form-fields`, { key }), 200);
    expect(listed.items.map((f: any) => [f.name, f.type])).toEqual([["name", "text"], ["agree", "checkbox"], ["country", "dropdown"], ["size", "radio"]]);
    expect(listed.items[2].options).toEqual(["DE", "FR"]);
    const { op, pdf } = await run({ operation: "fill", inputs: [{ assetId: ids.form }], fields: { name: "Ada Lovelace", agree: true, country: "FR", size: "M" } });
    const fields = Object.fromEntries((qpdfJson(pdf).acroform.fields as { fullname: string; value: unknown }[]).map((f) => [f.fullname, f.value]));
    // pdf-lib names a radio group's states by position (/0, /1) and its /Opt the options: M is /1.
    expect(fields).toMatchObject({ name: "u:Ada Lovelace", agree: "/Yes", country: "u:FR", size: "/1" });
    expect((await PDFDocument.load(pdf)).getForm().getRadioGroup("size").getSelected()).toBe("M");
    const flat = await run({ operation: "flatten", inputs: [{ renderId: op.id }] });
    expect(qpdfJson(flat.pdf).acroform.fields).toEqual([]);
    expect(text(flat.pdf)).toContain("Ada Lovelace");
    expect(info(flat.pdf)).toMatch(/Form:\s+none/);
  });

  test("compress: images downsampled to the dpi, the answer says bytes before and after", async () => {
    const { op, pdf } = await run({ operation: "compress", inputs: [{ assetId: ids.photo }], dpi: 72 });
    expect(op.result.bytesBefore).toBeGreaterThan(4_000_000);
    expect(op.result.bytesAfter).toBe(op.result.bytes);
    expect(op.result.bytesAfter).toBeLessThan(op.result.bytesBefore / 10);
    // 2 inches at 72 dpi: 144 pixels (Ghostscript rounds to its own grid).
    const width = Number(/\n\s+1\s+0\s+image\s+(\d+)/.exec(poppler(pdf, (f) => ["pdfimages", "-list", f]))![1]);
    expect(width).toBeLessThanOrEqual(160);
    check(pdf);
  });

  test("metadata, encrypt and sign: as a render's pdf.metadata, pdf.password and signature", async () => {
    const meta = await run({ operation: "metadata", inputs: [{ assetId: ids.two }], metadata: { title: "Two pages", author: "ACME" } });
    expect(info(meta.pdf)).toMatch(/Title:\s+Two pages/);
    expect(info(meta.pdf)).toMatch(/Author:\s+ACME/);
    const locked = await run({ operation: "encrypt", inputs: [{ assetId: ids.two }], password: { user: "u", owner: "o" } });
    expect(info(locked.pdf, "-upw", "u")).toMatch(/Encrypted:\s+yes.*AES-256/);
    const cert = ok(await t.call("/v1/certificates", { key, body: { name: "Signing", pkcs12: Buffer.from(makePkcs12()).toString("base64"), password: "secret" } }), 201);
    const signed = await run({ operation: "sign", inputs: [{ assetId: ids.locked, password: "open" }], signature: { certificateId: cert.id, reason: "Approved" } });
    expect(poppler(signed.pdf, (f) => ["pdfsig", f])).toContain("Signature Validation: Signature is Valid.");
    expect(text(signed.pdf)).toBe("Secret");
  });
});

describe("bad input", () => {
  const refused = async (body: Record<string, unknown>, status: number, path: string) => {
    const res = ok(await t.call("/v1/pdf-operations", { key, body }), status);
    expect(res.error.details.map((d: any) => d.path)).toContain(path);
    return res.error;
  };

  test("options: unknown operation, an option the operation does not take, a required one missing, the number of inputs", async () => {
    await refused({ operation: "shred", inputs: [{ assetId: ids.three }] }, 400, "/operation");
    await refused({ operation: "split", inputs: [{ assetId: ids.three }], ranges: ["1"], angle: 90 }, 400, "/angle");
    await refused({ operation: "split", inputs: [{ assetId: ids.three }] }, 400, "/ranges");
    await refused({ operation: "merge", inputs: [{ assetId: ids.three }] }, 400, "/inputs");
    await refused({ operation: "rotate", inputs: [{ assetId: ids.three, renderId: "rnd_x" }], angle: 90 }, 400, "/inputs/0");
    await refused({ operation: "rotate", inputs: [{ assetId: ids.three }], angle: 45 }, 400, "/angle");
    await refused({ operation: "split", inputs: [{ assetId: ids.three }], ranges: ["a-b"] }, 400, "/ranges/0");
    await refused({ operation: "stamp", inputs: [{ assetId: ids.three }] }, 400, "/text");
    await refused({ operation: "stamp", inputs: [{ assetId: ids.three }], text: "ЗАПЛАЧЕНО" }, 400, "/text");
    await refused({ operation: "split", inputs: [{ assetId: ids.three }], ranges: ["1"], destinationIds: ["dst_x"] }, 400, "/destinationIds");
    await refused({ operation: "flatten", inputs: [{ assetId: ids.three }], extra: 1 }, 400, "/extra");
  });

  test("inputs: not the workspace's PDF is 422; not a PDF, damaged, or locked without its password is 400 at the input", async () => {
    await refused({ operation: "flatten", inputs: [{ assetId: "ast_missing" }] }, 422, "/inputs/0/assetId");
    await refused({ operation: "flatten", inputs: [{ assetId: ids.xml }] }, 422, "/inputs/0/assetId");
    await refused({ operation: "flatten", inputs: [{ renderId: "rnd_missing" }] }, 422, "/inputs/0/renderId");
    const other = await t.makeWorkspace("Other");
    const theirs = ok(await t.call("/v1/pdf-operations", { key: await t.makeKey(other.id, ["render:create"]), body: { operation: "flatten", inputs: [{ assetId: ids.three }] } }), 422);
    expect(theirs.error.details[0].path).toBe("/inputs/0/assetId");
    expect((await refused({ operation: "flatten", inputs: [{ assetId: ids.damaged }] }, 400, "/inputs/0")).message).toContain("damaged");
    expect((await refused({ operation: "flatten", inputs: [{ assetId: ids.locked }] }, 400, "/inputs/0/password")).message).toContain("encrypted");
    await refused({ operation: "flatten", inputs: [{ assetId: ids.locked, password: "wrong" }] }, 400, "/inputs/0/password");
    await refused({ operation: "stamp", inputs: [{ assetId: ids.three }], assetId: ids.two }, 422, "/assetId");
  });

  test("pages, ranges and form fields are checked against the PDF", async () => {
    await refused({ operation: "rotate", inputs: [{ assetId: ids.three }], angle: 90, pages: [1, 4] }, 400, "/pages/1");
    await refused({ operation: "split", inputs: [{ assetId: ids.three }], ranges: ["1", "2-5"] }, 400, "/ranges/1");
    await refused({ operation: "split", inputs: [{ assetId: ids.three }], ranges: ["3-1"] }, 400, "/ranges/0");
    await refused({ operation: "fill", inputs: [{ assetId: ids.form }], fields: { nope: "x" } }, 400, "/fields/nope");
    await refused({ operation: "fill", inputs: [{ assetId: ids.form }], fields: { agree: "yes" } }, 400, "/fields/agree");
    await refused({ operation: "fill", inputs: [{ assetId: ids.form }], fields: { country: "IT" } }, 400, "/fields/country");
    ok(await t.call(`/v1/assets/${ids.png}/form-fields`, { key }), 400);
    ok(await t.call("/v1/assets/ast_missing/form-fields", { key }), 404);
    ok(await t.call("/v1/pdf-operations/pdo_missing", { key }), 404);
  });

  test("operations are listed at /v1/pdf-operations, never among renders", async () => {
    const op = ok(await t.call("/v1/pdf-operations", { key, body: { operation: "flatten", inputs: [{ assetId: ids.two }] } }), 202);
    expect(op.status).toBe("queued");
    expect(ok(await t.call("/v1/renders?limit=100", { key }), 200).items.some((r: any) => r.id === op.id)).toBe(false);
    ok(await t.call(`/v1/renders/${op.id}`, { key }), 404);
    expect(ok(await t.call("/v1/pdf-operations", { key }), 200).items[0].id).toBe(op.id);
    expect(ok(await t.call(`/v1/pdf-operations/${op.id}?wait=30`, { key }), 200).status).toBe("succeeded");
    // Cancelled as a render is: an ended one is 409, another workspace's (or none) 404.
    const cancel = await t.makeKey(t.defaultWorkspaceId, ["render:cancel"]);
    expect(ok(await t.call(`/v1/pdf-operations/${op.id}/cancel`, { key: cancel, method: "POST" }), 409).error.message).toContain("succeeded");
    ok(await t.call("/v1/pdf-operations/pdo_missing/cancel", { key: cancel, method: "POST" }), 404);
});
});
