/** pdf: what renderd needs to know about a PDF Chromium printed — how many pages it has. */
import { ClassicFile, latin1 } from "../pdf/classic-file";

/**
 * countPdfPages answers the page count of a PDF: the /Count of the page tree the trailer's /Root points at, found
 * through the cross-reference table (so no text inside the document can pose as a page; pdf/classic-file.ts reads only
 * the file's end and those two objects); when that path fails (an xref stream, a damaged file), the number of
 * `/Type /Page` objects.
 */
export function countPdfPages(pdf: Uint8Array): number {
  return ClassicFile.open(pdf)?.pageCount() ?? countPageObjects(latin1(pdf));
}

/** countPageObjects counts `/Type /Page` dictionaries (not `/Pages`): the fallback. */
export function countPageObjects(text: string): number {
  return text.match(/\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0;
}
