/** extract: what pdf.js reads from a PDF made with pdf-lib — text runs with position, size, weight and colour, filled
 * and stroked shapes, images — in points from the page's top left corner. */
import { expect, test } from "bun:test";
import { PDFDocument, rgb, StandardFonts } from "pdf-lib";
import { PNG } from "../../fixtures/assets";
import { ConversionFailure, extractPdf } from "../../../src/modules/template-conversions/extract";

test("runs, shapes and images come out where they were drawn", async () => {
  const doc = await PDFDocument.create();
  const page = doc.addPage([600, 800]);
  page.drawText("Invoice", { x: 50, y: 700, size: 20, font: await doc.embedFont(StandardFonts.HelveticaBold), color: rgb(0.2, 0.3, 0.8) });
  page.drawText("Due 2026-04-09", { x: 50, y: 670, size: 11, font: await doc.embedFont(StandardFonts.Helvetica) });
  page.drawRectangle({ x: 50, y: 600, width: 300, height: 20, color: rgb(0.9, 0.9, 0.9) });
  page.drawLine({ start: { x: 50, y: 590 }, end: { x: 500, y: 590 }, thickness: 2, color: rgb(0, 0, 0) });
  page.drawImage(await doc.embedPng(PNG), { x: 400, y: 700, width: 100, height: 50 });
  const out = await extractPdf(await doc.save());
  expect(out.pages).toEqual([{ width: 600, height: 800 }]);
  expect(out.runs.map((r) => ({ text: r.text, x: r.x, baseline: r.baseline, fontSize: r.fontSize, bold: r.bold, color: r.color }))).toEqual([
    { text: "Invoice", x: 50, baseline: 100, fontSize: 20, bold: true, color: "#334ccc" },
    { text: "Due 2026-04-09", x: 50, baseline: 130, fontSize: 11, bold: false, color: "#000000" },
  ]);
  expect(out.runs[0]!.fontFamily).toBe('"Helvetica", sans-serif');
  expect(out.shapes).toEqual([
    { page: 0, x: 50, y: 180, width: 300, height: 20, color: "#e6e6e6", paint: "fill", lineWidth: 0 },
    { page: 0, x: 50, y: 210, width: 450, height: 0, color: "#000000", paint: "stroke", lineWidth: 2 },
  ]);
  expect(out.images).toEqual([{ page: 0, x: 400, y: 50, width: 100, height: 50 }]);
});

test("a file that is no PDF is a ConversionFailure that says so", async () => {
  const failure = await extractPdf(new TextEncoder().encode("hello")).catch((e) => e);
  expect(failure).toBeInstanceOf(ConversionFailure);
  expect(failure.message).toContain("could not be read as a PDF");
});
