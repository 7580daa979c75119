/**
 * revision: an incremental update appended to a PDF with a classic cross-reference table (what Chromium writes), read
 * back by poppler and checked by qpdf; files it does not read (a cross-reference stream, encryption, damage) answer null.
 */
import { describe, expect, test } from "bun:test";
import { PDFDocument, PDFName, PDFString } from "pdf-lib";
import { Revision } from "../../src/pdf/revision";
import { poppler } from "../render/poppler";

/** classic makes a one-page PDF with a classic cross-reference table, as Chromium's are. */
async function classic(): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.addPage([300, 400]);
  doc.setTitle("printed");
  return doc.save({ useObjectStreams: false });
}

const text = (pdf: Uint8Array) => Buffer.from(pdf).toString("latin1");
const qpdfCheck = (pdf: Uint8Array) => poppler(pdf, (f) => ["qpdf", "--check", f]);

describe("Revision", () => {
  test("appends new and replaced objects after the printed bytes, with a table and a trailer pointing back", async () => {
    const printed = await classic();
    const revision = Revision.open(printed)!;
    expect(revision).not.toBeNull();
    expect(revision.info().get("Title")).toBe("<FEFF007000720069006E007400650064>");
    revision.setInfo(new Map([["Title", "(updated)"], ["Producer", "(renderd)"]]));
    const packet = revision.addStream(new Map([["Type", "/Metadata"], ["Subtype", "/XML"]]), new TextEncoder().encode("<x>é</x>"));
    const catalog = revision.catalog();
    revision.replace(catalog.ref, new Map(catalog.dict).set("Metadata", packet));
    const out = revision.bytes();

    expect(out.subarray(0, printed.length)).toEqual(printed);
    const startxref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(text(printed))![1];
    expect(text(out).slice(printed.length)).toContain(`/Prev ${startxref}`);
    expect(poppler(out, (f) => ["pdfinfo", f])).toMatch(/Title:\s+updated\n[\s\S]*Producer:\s+renderd/);
    expect(poppler(out, (f) => ["pdfinfo", "-meta", f])).toContain("<x>é</x>");
    expect(qpdfCheck(out)).toContain("No syntax or stream encoding errors");
    // The update can itself be updated: it now has a /Prev, which open() leaves to the full parser.
    expect(Revision.open(out)).toBeNull();
  });

  test("a PDF without an information dictionary gets one", async () => {
    const doc = await PDFDocument.create({ updateMetadata: false });
    doc.addPage();
    const revision = Revision.open(await doc.save({ useObjectStreams: false }))!;
    expect(revision.info().size).toBe(0);
    revision.setInfo(new Map([["Title", "(new)"]]));
    const out = revision.bytes();
    expect(poppler(out, (f) => ["pdfinfo", f])).toMatch(/Title:\s+new/);
    expect(qpdfCheck(out)).toContain("No syntax or stream encoding errors");
  });

  test("a catalog longer than the first read (1 KiB) is read whole all the same", async () => {
    const doc = await PDFDocument.create({ updateMetadata: false });
    doc.addPage();
    doc.catalog.set(PDFName.of("Padding"), PDFString.of("x".repeat(3000)));
    const revision = Revision.open(await doc.save({ useObjectStreams: false }))!;
    expect(revision).not.toBeNull();
    const catalog = revision.catalog();
    expect(catalog.dict.get("Type")).toBe("/Catalog");
    expect(catalog.dict.get("Padding")).toBe(`(${"x".repeat(3000)})`);
    revision.replace(catalog.ref, new Map(catalog.dict).set("Lang", "(en)"));
    expect(qpdfCheck(revision.bytes())).toContain("No syntax or stream encoding errors");
  });

  test("a cross-reference stream, an encrypted or a damaged file is left to the full parser", async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    expect(Revision.open(await doc.save({ useObjectStreams: true }))).toBeNull();
    const printed = text(await classic());
    const encrypted = printed.replace(/trailer\s*<</, "trailer\n<</Encrypt 99 0 R\n");
    expect(Revision.open(Buffer.from(encrypted, "latin1"))).toBeNull();
    expect(Revision.open(Buffer.from(printed.slice(0, -40), "latin1"))).toBeNull();
    expect(Revision.open(Buffer.from(printed.replace(/startxref\s+\d+/, "startxref\n12"), "latin1"))).toBeNull();
    expect(Revision.open(new TextEncoder().encode("not a pdf"))).toBeNull();
  });
});
