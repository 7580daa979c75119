/**
 * finish: the post-print pipeline on PDFs made with pdf-lib (no Chromium): the TEST mark on the printed pages only,
 * appended PDFs in order, metadata and XMP, the limits on the finished PDF, and PDF/A with an embedded file.
 */
import { describe, expect, test } from "bun:test";
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFString, StandardFonts } from "pdf-lib";
import { ApiError } from "../../src/errors";
import { finishPdf, type FinishDeps } from "../../src/render/finish";
import { PRODUCER } from "../../src/render/metadata";
import type { Finishing } from "../../src/render/pdf-options";
import { poppler } from "./poppler";

/** pdfOf makes a PDF with one page per text: with object streams, or with a classic cross-reference table as
 * Chromium's are (then a plain render's metadata is appended as an incremental update). */
async function pdfOf(...texts: string[]): Promise<Uint8Array> {
  return pdfWith({ useObjectStreams: true }, ...texts);
}

async function pdfWith(options: { useObjectStreams: boolean }, ...texts: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of texts) doc.addPage([300, 400]).drawText(text, { x: 20, y: 200, size: 14, font });
  doc.setCreationDate(new Date("2026-01-02T03:04:05Z"));
  return doc.save(options);
}

async function printed(...texts: string[]) {
  const pdf = await pdfOf(...texts);
  return { pdf, pages: texts.length, bytes: pdf.byteLength };
}

async function printedClassic(...texts: string[]) {
  const pdf = await pdfWith({ useObjectStreams: false }, ...texts);
  return { pdf, pages: texts.length, bytes: pdf.byteLength };
}

function deps(assets: Record<string, Uint8Array>, limits: Partial<FinishDeps> = {}): FinishDeps {
  return {
    asset: async (id) => (assets[id] ? { body: assets[id]!, contentType: "application/pdf" } : null),
    maxPages: 100,
    maxOutputBytes: 10_000_000,
    ...limits,
  };
}

const plain: Finishing = { testMark: false, metadata: { title: "invoice.pdf" } };
const pageText = (pdf: Uint8Array, page: number) => poppler(pdf, (f) => ["pdftotext", "-raw", "-f", `${page}`, "-l", `${page}`, f, "-"]).replace(/\s+/g, "");

describe("finishPdf", () => {
  test("a job without finishing keeps the printed PDF as it is", async () => {
    const p = await printed("one");
    expect(await finishPdf(p, undefined, deps({}))).toBe(p);
  });

  test("the TEST mark is on every printed page of a test render and on no appended page", async () => {
    const out = await finishPdf(await printed("alpha", "beta"), { ...plain, testMark: true, attachAssetIds: ["terms"] }, deps({ terms: await pdfOf("terms") }));
    expect(out.pages).toBe(3);
    expect(pageText(out.pdf, 1)).toContain("TEST");
    expect(pageText(out.pdf, 2)).toContain("TEST");
    expect(pageText(out.pdf, 3)).toBe("terms");
  });

  test("a real render carries no mark", async () => {
    const out = await finishPdf(await printed("alpha"), plain, deps({}));
    expect(pageText(out.pdf, 1)).toBe("alpha");
  });

  test("attached PDFs follow the printed pages in the order given", async () => {
    const out = await finishPdf(await printed("body"), { ...plain, attachAssetIds: ["b", "a"] }, deps({ a: await pdfOf("a1", "a2"), b: await pdfOf("b1") }));
    expect(out.pages).toBe(4);
    expect(poppler(out.pdf, (f) => ["pdfinfo", f])).toMatch(/Pages:\s+4/);
    expect([1, 2, 3, 4].map((p) => pageText(out.pdf, p))).toEqual(["body", "b1", "a1", "a2"]);
  });

  for (const [form, print] of [["a cross-reference stream (pdf-lib's full pass)", printed], ["a classic table (an incremental update)", printedClassic]] as const) {
    test(`metadata on ${form}: the information dictionary and XMP, the producer naming renderd and its version`, async () => {
      const metadata = { title: "Rechnung <1> & Ünïcode", author: "ACME", subject: "Invoice", keywords: ["invoice", "2026"], language: "de-CH" };
      const out = await finishPdf(await print("x"), { ...plain, metadata }, deps({}));
      const info = poppler(out.pdf, (f) => ["pdfinfo", f]);
      expect(info).toContain("Title:           Rechnung <1> & Ünïcode");
      expect(info).toContain("Author:          ACME");
      expect(info).toContain("Subject:         Invoice");
      expect(info).toContain(`Producer:        ${PRODUCER}`);
      expect(PRODUCER).toMatch(/^renderd \d+\.\d+\.\d+/);
      const xmp = poppler(out.pdf, (f) => ["pdfinfo", "-meta", f]);
      expect(xmp).toContain("Rechnung &lt;1&gt; &amp; Ünïcode");
      expect(xmp).toContain(`<pdf:Producer>${PRODUCER}</pdf:Producer>`);
      expect(xmp).toContain("<rdf:li>de-CH</rdf:li>");
      expect(String((await PDFDocument.load(out.pdf)).catalog.get(PDFName.of("Lang")))).toBe("(de-CH)");
      expect(info).toMatch(/CreationDate:\s+Fri Jan  2 03:04:05 2026 UTC/);
      expect(poppler(out.pdf, (f) => ["qpdf", "--check", f])).toContain("No syntax or stream encoding errors");
    });
  }

  test("the appended update writes the title as pdf-lib does, and keeps a creation date written with an offset, as Chromium writes it", async () => {
    const doc = await PDFDocument.create();
    doc.addPage([300, 400]);
    const infoOf = (d: PDFDocument) => d.context.lookup(d.context.trailerInfo.Info, PDFDict);
    infoOf(doc).set(PDFName.of("CreationDate"), PDFString.of("D:20260102050405+02'00'"));
    const pdf = await doc.save({ useObjectStreams: false });
    const title = "Rechnung 📄 Ünïcode \ud800 (1)";
    const out = await finishPdf({ pdf, pages: 1, bytes: pdf.byteLength }, { ...plain, metadata: { title } }, deps({}));
    expect(out.pdf.subarray(0, pdf.length)).toEqual(pdf);
    const info = infoOf(await PDFDocument.load(out.pdf, { updateMetadata: false }));
    expect(String(info.get(PDFName.of("Title")))).toBe(PDFHexString.fromText(title).toString());
    expect(info.lookup(PDFName.of("CreationDate"), PDFString).decodeDate().toISOString()).toBe("2026-01-02T03:04:05.000Z");
  });

  test("a plain render on a classic table keeps the printed bytes and appends the metadata; any other finishing rewrites the file", async () => {
    const p = await printedClassic("x");
    const out = await finishPdf(p, plain, deps({}));
    expect(out.pdf.subarray(0, p.pdf.length)).toEqual(p.pdf);
    expect(out.bytes).toBe(out.pdf.length);
    expect(poppler(out.pdf, (f) => ["pdfinfo", f])).toContain("Title:           invoice.pdf");
    const marked = await finishPdf(p, { ...plain, testMark: true }, deps({}));
    expect(marked.pdf.subarray(0, 100)).not.toEqual(p.pdf.subarray(0, 100));
  });

  test("more pages than RENDER_MAX_PAGES once the attachments are appended is LIMIT_EXCEEDED", async () => {
    const run = finishPdf(await printed("a", "b"), { ...plain, attachAssetIds: ["t"] }, deps({ t: await pdfOf("t") }, { maxPages: 2 }));
    await expect(run).rejects.toThrow(ApiError);
    await expect(run).rejects.toMatchObject({ code: "LIMIT_EXCEEDED", message: expect.stringContaining("3 pages; the limit is 2") });
  });

  test("more bytes than RENDER_MAX_OUTPUT_BYTES in the finished PDF is LIMIT_EXCEEDED", async () => {
    const run = finishPdf(await printed("a"), { ...plain, attachAssetIds: ["t"] }, deps({ t: await pdfOf(..."x".repeat(40).split("")) }, { maxOutputBytes: 3000 }));
    await expect(run).rejects.toMatchObject({ code: "LIMIT_EXCEEDED", message: expect.stringContaining("the limit is 3000") });
  });

  test("an attachment deleted before the render printed, or not a readable PDF, fails the render naming it", async () => {
    await expect(finishPdf(await printed("a"), { ...plain, attachAssetIds: ["gone"] }, deps({}))).rejects.toMatchObject({ code: "RENDER_FAILED", message: expect.stringContaining("gone") });
    const junk = new TextEncoder().encode("not a pdf at all");
    await expect(finishPdf(await printed("a"), { ...plain, attachAssetIds: ["junk"] }, deps({ junk }))).rejects.toMatchObject({ code: "RENDER_FAILED", message: expect.stringContaining("not a readable PDF") });
  });

  test("PDF/A-3b: pdfaid part 3 in the XMP, an sRGB output intent, the embedded file with its relationship, the metadata kept", async () => {
    const finishing: Finishing = { ...plain, metadata: { title: "Invoice 7" }, standard: "PDF/A-3b", embeddedFiles: [{ assetId: "x", name: "factur-x.xml", relationship: "Alternative" }] };
    const out = await finishPdf(await printed("invoice"), finishing, deps({ x: await pdfOf("data") }));
    const xmp = poppler(out.pdf, (f) => ["pdfinfo", "-meta", f]);
    expect(xmp).toContain("<pdfaid:part>3</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance>");
    expect(poppler(out.pdf, (f) => ["pdfinfo", f])).toContain("Title:           Invoice 7");
    expect(poppler(out.pdf, (f) => ["pdfdetach", "-list", f])).toContain("1: factur-x.xml");
    const raw = Buffer.from(out.pdf).toString("latin1");
    expect(raw).toContain("/GTS_PDFA1");
    expect(raw).toMatch(/\/AFRelationship\s*\/Alternative/);
    expect(raw).toMatch(/\/AF\s*\[/);
    expect(pageText(out.pdf, 1)).toBe("invoice");
  });

  test("PDF/A-2b: pdfaid part 2", async () => {
    const out = await finishPdf(await printed("x"), { ...plain, standard: "PDF/A-2b" }, deps({}));
    expect(poppler(out.pdf, (f) => ["pdfinfo", "-meta", f])).toContain("<pdfaid:part>2</pdfaid:part>");
  });
});
