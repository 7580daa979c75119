/**
 * classic-file: a PDF with a classic cross-reference table (what Chromium writes) read from its end: the trailer, the
 * catalog, the information dictionary and the page tree's count; any other file answers null.
 */
import { describe, expect, test } from "bun:test";
import { PDFDocument, PDFName, PDFNumber } from "pdf-lib";
import { ClassicFile } from "../../src/pdf/classic-file";
import { Revision } from "../../src/pdf/revision";
import { countPdfPages } from "../../src/render/pdf";

async function pdf(pages: number, options: { objectStreams?: boolean; title?: string } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  for (let i = 0; i < pages; i++) doc.addPage([300, 400]).drawText(`/Type /Pages /Count 99 page ${i + 1}`, { x: 10, y: 10 });
  if (options.title) doc.setTitle(options.title);
  return doc.save({ useObjectStreams: options.objectStreams ?? false });
}

describe("ClassicFile", () => {
  test("reads the trailer, the catalog, the information dictionary and the page tree's count", async () => {
    const file = ClassicFile.open(await pdf(3, { title: "three" }))!;
    expect(file).not.toBeNull();
    expect(file.catalog().dict.get("Type")).toBe("/Catalog");
    expect(file.info().get("Title")).toBe("<FEFF00740068007200650065>");
    // The pages' own text says /Count 99: the count comes from the page tree the table points at.
    expect(file.pageCount()).toBe(3);
  });

  test("one array is read once; the same bytes in another array, or a damaged table entry, are read anew", async () => {
    const bytes = await pdf(2);
    const file = ClassicFile.open(bytes);
    expect(ClassicFile.open(bytes)).toBe(file);
    const copy = bytes.slice();
    expect(ClassicFile.open(copy)).not.toBe(file);
    expect(ClassicFile.open(copy)!.pageCount()).toBe(2);
    // An entry's generation with a letter in it: not a table this reads.
    const text = Buffer.from(bytes).toString("latin1");
    const table = text.lastIndexOf("\nxref");
    const entry = /\d{10} \d{5} n/.exec(text.slice(table))!;
    const at = table + entry.index + 11;
    expect(ClassicFile.open(Buffer.from(text.slice(0, at) + "0000x" + text.slice(at + 5), "latin1"))).toBeNull();
  });

  test("a cross-reference stream or an updated file is not read: null, and the page count falls back to the page objects", async () => {
    expect(ClassicFile.open(await pdf(2, { objectStreams: true }))).toBeNull();
    const revision = Revision.open(await pdf(2))!;
    revision.setInfo(new Map([["Title", "(updated)"]]));
    const updated = revision.bytes();
    expect(ClassicFile.open(updated)).toBeNull();
    expect(countPdfPages(updated)).toBe(2);
    expect(ClassicFile.open(new TextEncoder().encode("not a PDF"))).toBeNull();
  });

  test("a reference reads as one value; numbers in an array, or a number before a name, do not", async () => {
    const doc = await PDFDocument.create({ updateMetadata: false });
    doc.addPage([300, 400]);
    const page = doc.getPage(0).ref;
    const info = doc.context.obj({ Box: [0, 0, 595, 842], Refs: [page, page, 7], Page: page, Num: PDFNumber.of(3), RG: PDFName.of("RGB") });
    doc.context.trailerInfo.Info = doc.context.register(info);
    const read = ClassicFile.open(await doc.save({ useObjectStreams: false }))!.info();
    const ref = `${page.objectNumber} ${page.generationNumber} R`;
    expect(read.get("Box")).toBe("[ 0 0 595 842 ]");
    expect(read.get("Refs")).toBe(`[ ${ref} ${ref} 7 ]`);
    expect(read.get("Page")).toBe(ref);
    expect(read.get("Num")).toBe("3");
    expect(read.get("RG")).toBe("/RGB");
  });

  test("a page tree whose count is not a plain number answers null", async () => {
    const text = Buffer.from(await pdf(1)).toString("latin1");
    // The same length, so the table's offsets still hold.
    const damaged = new Uint8Array(Buffer.from(text.replace("/Count 1", "/Count x"), "latin1"));
    expect(ClassicFile.open(damaged)?.pageCount()).toBeNull();
  });
});
