/** operations/pages: merge (with a bookmark per input), split (page ranges, one PDF each) and rotate — pdf-lib copies
 * and turns pages; nothing is drawn again. */
import { degrees, PDFDocument, PDFHexString, PDFName, PDFNumber, type PDFDict, type PDFRef } from "pdf-lib";
import { pageIndexes, rangeIndexes, type OpenedPdf } from "./open";

/** MergeInput is one PDF to merge and the title of its bookmark. */
export interface MergeInput {
  pdf: OpenedPdf;
  title: string;
}

/** mergePdfs answers the inputs' pages in order in one PDF; with `bookmarks`, an outline of one entry per input that
 * opens at its first page. The inputs' own outlines and form fields are not carried over (docs/pdf.md). */
export async function mergePdfs(inputs: MergeInput[], bookmarks: boolean): Promise<PDFDocument> {
  const merged = await PDFDocument.create({ updateMetadata: false });
  const firsts: { title: string; page: PDFRef }[] = [];
  for (const input of inputs) {
    const pages = await merged.copyPages(input.pdf.doc, input.pdf.doc.getPageIndices());
    pages.forEach((page) => merged.addPage(page));
    if (pages[0]) firsts.push({ title: input.title, page: pages[0].ref });
  }
  if (bookmarks && firsts.length) addOutline(merged, firsts);
  return merged;
}

/** addOutline writes a flat outline (ISO 32000-1 12.3.3): each entry a title and a destination that fits its page. */
function addOutline(doc: PDFDocument, entries: { title: string; page: PDFRef }[]): void {
  const { context } = doc;
  const root = context.nextRef();
  const refs = entries.map(() => context.nextRef());
  entries.forEach((entry, i) => {
    const item: PDFDict = context.obj({});
    item.set(PDFName.of("Title"), PDFHexString.fromText(entry.title));
    item.set(PDFName.of("Parent"), root);
    item.set(PDFName.of("Dest"), context.obj([entry.page, PDFName.of("Fit")]));
    if (i > 0) item.set(PDFName.of("Prev"), refs[i - 1]!);
    if (i < refs.length - 1) item.set(PDFName.of("Next"), refs[i + 1]!);
    context.assign(refs[i]!, item);
  });
  const outlines: PDFDict = context.obj({ Type: "Outlines" });
  outlines.set(PDFName.of("First"), refs[0]!);
  outlines.set(PDFName.of("Last"), refs[refs.length - 1]!);
  outlines.set(PDFName.of("Count"), PDFNumber.of(refs.length));
  context.assign(root, outlines);
  doc.catalog.set(PDFName.of("Outlines"), root);
  doc.catalog.set(PDFName.of("PageMode"), PDFName.of("UseOutlines"));
}

/** splitPdf answers one PDF per range of `ranges` (`3`, `1-2`, `4-`), each with those pages in order. */
export async function splitPdf(input: OpenedPdf, ranges: string[]): Promise<PDFDocument[]> {
  const parts: PDFDocument[] = [];
  for (const indexes of rangeIndexes(ranges, input.doc.getPageCount())) {
    const part = await PDFDocument.create({ updateMetadata: false });
    for (const page of await part.copyPages(input.doc, indexes)) part.addPage(page);
    parts.push(part);
  }
  return parts;
}

/** rotatePages turns `pages` (all when undefined) by `angle` degrees clockwise, added to each page's own turn. */
export function rotatePages(input: OpenedPdf, angle: 90 | 180 | 270, pages?: number[]): PDFDocument {
  const all = input.doc.getPages();
  for (const index of pageIndexes(pages, all.length)) {
    const page = all[index]!;
    page.setRotation(degrees((page.getRotation().angle + angle) % 360));
  }
  return input.doc;
}
