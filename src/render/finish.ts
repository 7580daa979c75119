/**
 * finish: what happens to a printed PDF before it is stored (issue 13; docs/pdf.md "The order"), always in this order:
 * 1. the TEST mark on every printed page of a test render (before appending, so an attached PDF is never marked);
 * 2. the `attachAssetIds` PDFs appended after the printed pages;
 * 3. the PDF/A conversion (pdfa.ts), which rewrites the whole file and keeps none of its metadata;
 * 4. the embedded files, then the metadata: the information dictionary and XMP (with `pdfaid` for PDF/A), written
 *    last so that they describe the file as stored;
 * then the page and byte limits are checked on the result, as the pool checks the printed PDF. The password and
 * the signature (docs/pdf.md) come after all of these: any later change would break a signature.
 */
import { AFRelationship, degrees, PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from "pdf-lib";
import { ApiError } from "../errors";
import { appendMetadata, setMetadata } from "./metadata";
import type { Finishing } from "./pdf-options";
import { convertToPdfA } from "./pdfa";
import type { AssetBody } from "./print";

/** FinishDeps is what finishing needs beyond the PDF: the workspace's asset bytes and the limits. */
export interface FinishDeps {
  /** An uploaded asset of the render's workspace, or null when it is gone. */
  asset(assetId: string): Promise<AssetBody | null>;
  maxPages: number;
  maxOutputBytes: number;
}

/** Finished is the stored PDF, its page count and its size. */
export interface Finished {
  pdf: Uint8Array;
  pages: number;
  bytes: number;
}

/** finishPdf applies a render's finishing to its printed PDF and checks the limits on the result; a job queued before
 * finishing existed has none, and its PDF is stored as printed. */
export async function finishPdf(printed: Finished, finishing: Finishing | undefined, deps: FinishDeps): Promise<Finished> {
  if (!finishing) return printed;
  const plain = !finishing.testMark && !finishing.attachAssetIds?.length && !finishing.standard && !finishing.embeddedFiles?.length;
  const appended = plain ? appendMetadata(printed.pdf, finishing.metadata) : null;
  if (appended) return checked(appended, printed.pages, deps);
  let doc = await PDFDocument.load(printed.pdf, { updateMetadata: false });
  if (finishing.testMark) {
    const font = await doc.embedFont(StandardFonts.HelveticaBold);
    for (const page of doc.getPages()) markTest(page, font);
  }
  for (const assetId of finishing.attachAssetIds ?? []) await append(doc, assetId, deps);
  const pages = doc.getPageCount();
  if (pages > deps.maxPages) throw new ApiError("LIMIT_EXCEEDED", `The document with its attached PDFs has ${pages} pages; the limit is ${deps.maxPages}.`);
  if (finishing.standard) doc = await PDFDocument.load(await convertToPdfA(await doc.save(), finishing.standard), { updateMetadata: false });
  for (const file of finishing.embeddedFiles ?? []) await embed(doc, file, deps);
  setMetadata(doc, finishing.metadata, finishing.standard, finishing.facturX);
  // PDF/A-2 allows object streams, but validators and older readers check PDF/A files more easily without them.
  return checked(await doc.save({ useObjectStreams: !finishing.standard }), pages, deps);
}

/** checked answers the finished PDF once its size is within RENDER_MAX_OUTPUT_BYTES. */
function checked(pdf: Uint8Array, pages: number, deps: FinishDeps): Finished {
  if (pdf.byteLength > deps.maxOutputBytes)
    throw new ApiError("LIMIT_EXCEEDED", `The PDF has ${pdf.byteLength} bytes; the limit is ${deps.maxOutputBytes}.`);
  return { pdf, pages, bytes: pdf.byteLength };
}

const MARK = "TEST";
const MARK_GREY = rgb(0.75, 0.75, 0.75);

/** markTest draws TEST across the page's diagonal, centred, in light grey, over the content but see-through. */
function markTest(page: PDFPage, font: PDFFont): void {
  const { width, height } = page.getSize();
  const angle = Math.atan2(height, width);
  const size = (Math.hypot(width, height) * 0.5) / font.widthOfTextAtSize(MARK, 1);
  const textWidth = font.widthOfTextAtSize(MARK, size);
  const textHeight = font.heightAtSize(size, { descender: false });
  // drawText rotates about the text's origin; move the origin so the text's centre is the page's.
  const x = width / 2 - (Math.cos(angle) * textWidth - Math.sin(angle) * textHeight) / 2;
  const y = height / 2 - (Math.sin(angle) * textWidth + Math.cos(angle) * textHeight) / 2;
  page.drawText(MARK, { x, y, size, font, color: MARK_GREY, opacity: 0.35, rotate: degrees((angle * 180) / Math.PI) });
}

/** append copies every page of a PDF asset after the document's pages. */
async function append(doc: PDFDocument, assetId: string, deps: FinishDeps): Promise<void> {
  const attached = (await openAsset(assetId, deps)).body;
  let source: PDFDocument;
  try {
    source = await PDFDocument.load(attached, { updateMetadata: false });
  } catch (e) {
    const why = e instanceof Error && /encrypt/i.test(e.message) ? "it is encrypted" : "it is not a readable PDF";
    throw new ApiError("RENDER_FAILED", `The PDF asset ${assetId} in pdf.attachAssetIds cannot be appended: ${why}. Upload an unencrypted, undamaged PDF.`);
  }
  for (const page of await doc.copyPages(source, source.getPageIndices())) doc.addPage(page);
}

/** embed adds an asset as an embedded file, listed in the catalog's /AF with its relationship (PDF/A-3, Factur-X). */
async function embed(doc: PDFDocument, file: NonNullable<Finishing["embeddedFiles"]>[number], deps: FinishDeps): Promise<void> {
  const { body, contentType } = await openAsset(file.assetId, deps);
  await doc.attach(body, file.name, { mimeType: contentType, afRelationship: AFRelationship[file.relationship ?? "Data"], modificationDate: new Date() });
}

async function openAsset(assetId: string, deps: FinishDeps): Promise<AssetBody> {
  const asset = await deps.asset(assetId);
  if (!asset) throw new ApiError("RENDER_FAILED", `The asset ${assetId} named in the render's pdf options was deleted before the render printed.`);
  return asset;
}
