/** pdf: what renderd needs to know about a PDF Chromium printed — how many pages it has. */

/**
 * countPdfPages answers the page count of a PDF: the /Count of the page tree the trailer's /Root points at, found
 * through the cross-reference table (so no text inside the document can pose as a page); when that path fails
 * (an xref stream, a damaged file), the number of `/Type /Page` objects.
 */
export function countPdfPages(pdf: Uint8Array): number {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString("latin1");
  return countFromPageTree(text) ?? countPageObjects(text);
}

/** countPageObjects counts `/Type /Page` dictionaries (not `/Pages`): the fallback. */
export function countPageObjects(text: string): number {
  return text.match(/\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0;
}

function countFromPageTree(text: string): number | null {
  const tail = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(text.slice(-1024));
  if (!tail) return null;
  const xref = readXref(text, Number(tail[1]));
  if (!xref) return null;
  const root = /\/Root\s+(\d+)\s+\d+\s+R/.exec(xref.trailer);
  if (!root) return null;
  const catalog = objectBody(text, xref.offsets, Number(root[1]));
  const pagesRef = catalog && /\/Pages\s+(\d+)\s+\d+\s+R/.exec(catalog);
  if (!pagesRef) return null;
  const pages = objectBody(text, xref.offsets, Number(pagesRef[1]));
  const count = pages && /\/Type\s*\/Pages(?![A-Za-z])/.test(pages) ? /\/Count\s+(\d+)/.exec(pages) : null;
  return count ? Number(count[1]) : null;
}

/** readXref reads a classic cross-reference table (what Skia writes) and the trailer dictionary after it. */
function readXref(text: string, at: number): { offsets: Map<number, number>; trailer: string } | null {
  if (text.slice(at, at + 4) !== "xref") return null;
  const end = text.indexOf("trailer", at);
  if (end < 0) return null;
  const offsets = new Map<number, number>();
  const lines = text.slice(at + 4, end).split(/\r\n|\r|\n/).map((line) => line.trim()).filter(Boolean);
  let next = 0;
  for (const line of lines) {
    const section = /^(\d+)\s+(\d+)$/.exec(line);
    if (section) {
      next = Number(section[1]);
      continue;
    }
    const entry = /^(\d{10})\s+(\d{5})\s+([nf])$/.exec(line);
    if (!entry) return null;
    if (entry[3] === "n") offsets.set(next, Number(entry[1]));
    next++;
  }
  const close = text.indexOf("startxref", end);
  return { offsets, trailer: text.slice(end, close < 0 ? undefined : close) };
}

/** objectBody answers the text between `N G obj` and `endobj` of object N, found at its cross-reference offset. */
function objectBody(text: string, offsets: Map<number, number>, num: number): string | null {
  const at = offsets.get(num);
  if (at === undefined) return null;
  const head = new RegExp(`^${num}\\s+\\d+\\s+obj`).exec(text.slice(at, at + 32));
  if (!head) return null;
  const end = text.indexOf("endobj", at);
  return end < 0 ? null : text.slice(at + head[0].length, end);
}
