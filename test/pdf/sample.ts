/** sample: a small one-page PDF to sign and encrypt in unit tests. */
import { PDF } from "@libpdf/core";

/** samplePdf answers a one-page PDF with the text "Invoice 42". */
export async function samplePdf(): Promise<Uint8Array> {
  const pdf = PDF.create();
  const page = pdf.addPage();
  page.drawText("Invoice 42", { x: 72, y: 720, size: 18 });
  return pdf.save();
}
