/**
 * classic-file: a PDF with a classic cross-reference table (what Chromium's Skia writes) read from its end — the last
 * trailer, the table, and dictionary objects by reference — without decoding the rest of the file. A file it does not
 * read (a cross-reference stream, an earlier revision, encryption, damage) answers null, and the caller takes a fuller
 * path: pdf/revision.ts appends to such a file, render/pdf.ts counts its pages.
 */

/** A dictionary's entries as raw PDF text: key without its slash → value exactly as written. */
export type RawDict = Map<string, string>;

/** latin1 reads bytes as text one character per byte (Buffer's latin1; TextDecoder's "latin1" is windows-1252). */
export const latin1 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
// PDF's white space and delimiters (ISO 32000-1 7.2.2), by character code: looked up, not matched, since the reading runs
// once per render between a print and a commit, where a regular expression per character cost several times as much.
const WHITE = charSet("\0\t\n\f\r ");
const DELIMITER = charSet("\0\t\n\f\r ()<>[]{}/%");
const NUMBER = /^\d+$/;
// The tail read for the trailer: Chromium's is ~60 bytes, past its last table entry.
const TAIL = 1024;
// A catalog or information dictionary longer than this is not Chromium's: the caller falls back.
const MAX_OBJECT = 16 * 1024;
// Chromium's are a few hundred bytes: a first read this long finds them whole without decoding 16 KiB of the page's
// content as text (a third of the update's time); a longer one is read again up to MAX_OBJECT.
const FIRST_READ = 1024;

const opened = new WeakMap<Uint8Array, ClassicFile | null>();

/** ClassicFile is a PDF's last trailer and cross-reference table, and its dictionary objects read on demand. */
export class ClassicFile {
  private root?: { ref: Ref; dict: ReadonlyMap<string, string> };

  private constructor(
    readonly pdf: Uint8Array,
    private readonly offsets: Map<number, { offset: number; gen: number }>,
    readonly trailer: ReadonlyMap<string, string>,
    readonly startxref: number,
  ) {}

  /** open reads a PDF's last trailer and cross-reference table; null when the file is not one this reads. The same bytes
   * (the same array, never changed in place) are read once: the pool counts a printed PDF's pages, then finishing
   * appends its metadata to it. */
  static open(pdf: Uint8Array): ClassicFile | null {
    let file = opened.get(pdf);
    if (file === undefined) opened.set(pdf, (file = orNull(() => ClassicFile.read(pdf))));
    return file;
  }

  private static read(pdf: Uint8Array): ClassicFile {
    const tail = latin1(pdf.subarray(Math.max(0, pdf.length - TAIL)));
    const end = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail) ?? unexpected();
    const startxref = Number(end[1]);
    if (startxref >= pdf.length) unexpected();
    // The table and trailer: from startxref to the end (a few hundred bytes per 20 objects).
    const text = latin1(pdf.subarray(startxref));
    if (!text.startsWith("xref")) unexpected(); // a cross-reference stream (PDF 1.5): not Chromium's
    const offsets = new Map<number, { offset: number; gen: number }>();
    let pos = 4;
    for (;;) {
      const head = /^\s*(\d+)\s+(\d+)[ \t]*\r?\n/.exec(text.slice(pos, pos + 40));
      if (!head) break;
      pos += head[0].length;
      const [first, count] = [Number(head[1]), Number(head[2])];
      // Each entry is `oooooooooo ggggg n` in 20 bytes (7.5.4).
      for (let i = 0; i < count; i++, pos += 20) {
        const offset = digits(text, pos, 10);
        const gen = digits(text, pos + 11, 5);
        const kind = text[pos + 17];
        if (text[pos + 10] !== " " || text[pos + 16] !== " " || (kind !== "n" && kind !== "f")) unexpected();
        if (kind === "n") offsets.set(first + i, { offset, gen });
      }
    }
    const at = /^\s*trailer\s*/.exec(text.slice(pos)) ?? unexpected();
    const trailer = parseDict(text, pos + at[0].length).dict;
    // Encrypted files need every string decrypted; earlier revisions or a hybrid file need the full parser.
    for (const key of ["Encrypt", "Prev", "XRefStm"]) if (trailer.has(key)) unexpected();
    if (!NUMBER.test(trailer.get("Size") ?? "")) unexpected();
    const file = new ClassicFile(pdf, offsets, trailer, startxref);
    if (file.catalog().dict.get("Type") !== "/Catalog") unexpected();
    return file;
  }

  /** catalog answers the document catalog's reference and its entries (read once: open checks its type). */
  catalog(): { ref: Ref; dict: ReadonlyMap<string, string> } {
    if (!this.root) {
      const ref = parseRef(this.trailer.get("Root"));
      this.root = { ref, dict: this.object(ref) };
    }
    return this.root;
  }

  /** info answers the information dictionary (empty when there is none). */
  info(): RawDict {
    const info = this.trailer.get("Info");
    return info === undefined ? new Map() : this.object(parseRef(info));
  }

  /** pageCount answers the /Count of the page tree the catalog names, or null when it is not a plain /Pages dictionary:
   * found through the table, so no text inside the document can pose as a page. */
  pageCount(): number | null {
    const pages = orNull(() => this.object(parseRef(this.catalog().dict.get("Pages"))));
    const count = pages?.get("Count") ?? "";
    return pages?.get("Type") === "/Pages" && NUMBER.test(count) ? Number(count) : null;
  }

  /** object reads an indirect object that must be a dictionary; Unexpected otherwise. */
  private object(ref: Ref): RawDict {
    const at = this.offsets.get(ref.number);
    if (!at || at.gen !== ref.gen) unexpected();
    try {
      return dictObject(latin1(this.pdf.subarray(at.offset, at.offset + FIRST_READ)), ref);
    } catch (e) {
      // Cut short by the first read (a truncated object never reads as whole: its `endobj` is missing), or not a dictionary.
      if (!(e instanceof Unexpected)) throw e;
      return dictObject(latin1(this.pdf.subarray(at.offset, at.offset + MAX_OBJECT)), ref);
    }
  }
}

/** dictObject reads the dictionary of object `ref` from text starting at its `n g obj`. */
function dictObject(text: string, ref: Ref): RawDict {
  const head = new RegExp(`^${ref.number}\\s+${ref.gen}\\s+obj\\s*`).exec(text) ?? unexpected();
  const { dict, end } = parseDict(text, head[0].length);
  if (!/^\s*endobj/.test(text.slice(end))) unexpected(); // a stream, or a truncated read
  return dict;
}

/** A reference to an indirect object. */
export interface Ref {
  number: number;
  gen: number;
}

/** Unexpected: the file is not what ClassicFile reads; open() answers null. */
class Unexpected extends Error {}

function unexpected(): never {
  throw new Unexpected();
}

/** orNull answers what `read` reads, or null when the file is not what it expects. */
function orNull<T>(read: () => T): T | null {
  try {
    return read();
  } catch (e) {
    if (e instanceof Unexpected) return null;
    throw e;
  }
}

export function parseRef(value: string | undefined): Ref {
  const m = /^(\d+)\s+(\d+)\s+R$/.exec(value ?? "") ?? unexpected();
  return { number: Number(m[1]), gen: Number(m[2]) };
}

/** parseDict reads the dictionary starting at `pos` (its `<<`), keeping each value's raw text. */
function parseDict(text: string, pos: number): { dict: RawDict; end: number } {
  if (!text.startsWith("<<", pos)) unexpected();
  const dict: RawDict = new Map();
  pos = skip(text, pos + 2);
  while (!text.startsWith(">>", pos)) {
    if (text[pos] !== "/") unexpected();
    const key = token(text, pos + 1);
    const start = skip(text, pos + 1 + key.length);
    const end = valueEnd(text, start);
    dict.set(key, text.slice(start, end));
    pos = skip(text, end);
  }
  return { dict, end: pos + 2 };
}

/** valueEnd answers where the value starting at `pos` ends. */
function valueEnd(text: string, pos: number): number {
  const c = text[pos];
  if (c === undefined || c === "%") unexpected();
  if (text.startsWith("<<", pos)) return parseDict(text, pos).end;
  if (c === "<") {
    const close = text.indexOf(">", pos);
    return close < 0 ? unexpected() : close + 1;
  }
  if (c === "(") return literalEnd(text, pos);
  if (c === "[") {
    pos = skip(text, pos + 1);
    while (text[pos] !== "]") pos = skip(text, valueEnd(text, pos));
    return pos + 1;
  }
  if (c === "/") return pos + 1 + token(text, pos + 1).length;
  const word = token(text, pos);
  if (!word) unexpected();
  const end = pos + word.length;
  // `n g R`: a reference reads as one value, its parts apart by white space, its `R` a word of its own.
  const genAt = skip(text, end);
  const gen = token(text, genAt);
  const rAt = skip(text, genAt + gen.length);
  const isRef = genAt > end && rAt > genAt + gen.length && NUMBER.test(word) && NUMBER.test(gen) && token(text, rAt) === "R";
  return isRef ? rAt + 1 : end;
}

/** literalEnd answers the end of a literal string: balanced parentheses, backslash escapes (7.3.4.2). */
function literalEnd(text: string, pos: number): number {
  let depth = 0;
  for (let i = pos; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i + 1;
  }
  return unexpected();
}

function token(text: string, pos: number): string {
  let end = pos;
  while (end < text.length && DELIMITER[text.charCodeAt(end)] !== 1) end++;
  return text.slice(pos, end);
}

function skip(text: string, pos: number): number {
  while (pos < text.length && WHITE[text.charCodeAt(pos)] === 1) pos++;
  return pos;
}

/** digits reads `count` decimal digits at `pos` as a number; Unexpected if any is not one. */
function digits(text: string, pos: number, count: number): number {
  let n = 0;
  for (let i = pos; i < pos + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (!(d >= 0 && d <= 9)) unexpected();
    n = n * 10 + d;
  }
  return n;
}

/** charSet marks the codes of `chars`; a code past 255 reads as undefined, in no set. */
function charSet(chars: string): Uint8Array {
  const set = new Uint8Array(256);
  for (let i = 0; i < chars.length; i++) set[chars.charCodeAt(i)] = 1;
  return set;
}
