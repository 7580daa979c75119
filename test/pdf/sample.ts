/** sample: a small one-page PDF to sign and encrypt in unit tests. */
import { PDF } from "@libpdf/core";

/** samplePdf answers a PDF of US Letter pages (one unless asked), the first with the text "Invoice 42". */
export async function samplePdf(pages = 1): Promise<Uint8Array> {
  const pdf = PDF.create();
  pdf.addPage().drawText("Invoice 42", { x: 72, y: 720, size: 18 });
  for (let i = 1; i < pages; i++) pdf.addPage();
  return pdf.save();
}
