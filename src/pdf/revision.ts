/**
 * revision: changes appended to a PDF as an incremental update (ISO 32000-1 7.5.6) — new and replaced objects, a
 * cross-reference section for them and a trailer pointing back at the previous one — so the printed file is neither
 * parsed nor written again. It reads only what it needs (the last trailer, the table, the catalog) and only the
 * classic cross-reference table Chromium (Skia) writes; anything else answers null and the caller takes the full path.
 */

/** A dictionary's entries as raw PDF text: key without its slash → value exactly as written. */
export type RawDict = Map<string, string>;

/** latin1 reads bytes as text one character per byte (Buffer's latin1; TextDecoder's "latin1" is windows-1252). */
const latin1 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
const WHITE = /[\0\t\n\f\r ]/;
const DELIMITER = /[\0\t\n\f\r ()<>[\]{}/%]/;
// The tail read for the trailer: Chromium's is ~60 bytes, past its last table entry.
const TAIL = 1024;
// A catalog or information dictionary longer than this is not Chromium's: the caller falls back.
const MAX_OBJECT = 16 * 1024;
// Chromium's are a few hundred bytes: a first read this long finds them whole without decoding 16 KiB of the page's
// content as text (a third of the update's time); a longer one is read again up to MAX_OBJECT.
const FIRST_READ = 1024;

/** Revision is one incremental update being built on a PDF. */
export class Revision {
  private readonly added = new Map<number, string>();
  /** The generation of each replaced object (a new object's is 0). */
  private readonly gens = new Map<number, number>();
  private next: number;

  private constructor(
    private readonly pdf: Uint8Array,
    private readonly offsets: Map<number, { offset: number; gen: number }>,
    private readonly trailer: RawDict,
    private readonly startxref: number,
  ) {
    this.next = Number(trailer.get("Size"));
  }

  /** open reads a PDF's last trailer and cross-reference table; null when the file is not one this can update. */
  static open(pdf: Uint8Array): Revision | null {
    try {
      return Revision.read(pdf);
    } catch (e) {
      if (e instanceof Unexpected) return null;
      throw e;
    }
  }

  private static read(pdf: Uint8Array): Revision {
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
      for (let i = 0; i < count; i++, pos += 20) {
        const entry = /^(\d{10}) (\d{5}) ([nf])/.exec(text.slice(pos, pos + 20)) ?? unexpected();
        if (entry[3] === "n") offsets.set(first + i, { offset: Number(entry[1]), gen: Number(entry[2]) });
      }
    }
    const at = /^\s*trailer\s*/.exec(text.slice(pos)) ?? unexpected();
    const trailer = parseDict(text, pos + at[0].length).dict;
    // Encrypted files need every new string encrypted; earlier revisions or a hybrid file need the full parser.
    for (const key of ["Encrypt", "Prev", "XRefStm"]) if (trailer.has(key)) unexpected();
    if (!/^\d+$/.test(trailer.get("Size") ?? "")) unexpected();
    const revision = new Revision(pdf, offsets, trailer, startxref);
    if (revision.catalog().dict.get("Type") !== "/Catalog") unexpected();
    return revision;
  }

  /** catalog answers the document catalog's reference and its current entries. */
  catalog(): { ref: Ref; dict: RawDict } {
    const ref = parseRef(this.trailer.get("Root"));
    return { ref, dict: this.object(ref) };
  }

  /** info answers the current information dictionary (empty when there is none). */
  info(): RawDict {
    const info = this.trailer.get("Info");
    return info === undefined ? new Map() : this.object(parseRef(info));
  }

  /** add appends a new object, written as given (latin1 text), and answers its reference (`n 0 R`). */
  add(body: string): string {
    const number = this.next++;
    this.added.set(number, body);
    return `${number} 0 R`;
  }

  /** addStream appends a new stream object (uncompressed) and answers its reference. */
  addStream(dict: RawDict, data: Uint8Array): string {
    const head = new Map(dict).set("Length", String(data.length));
    return this.add(`${writeDict(head)}\nstream\n${latin1(data)}\nendstream`);
  }

  /** replace writes a new version of an existing dictionary object (at its generation). */
  replace(ref: Ref, dict: RawDict): void {
    this.added.set(ref.number, writeDict(dict));
    this.gens.set(ref.number, ref.gen);
  }

  /** setInfo replaces the information dictionary, or adds one. */
  setInfo(dict: RawDict): void {
    const info = this.trailer.get("Info");
    if (info === undefined) this.trailer.set("Info", this.add(writeDict(dict)));
    else this.replace(parseRef(info), dict);
  }

  /** bytes answers the PDF with the update appended. */
  bytes(): Uint8Array {
    const parts: string[] = [this.pdf[this.pdf.length - 1] === 0x0a ? "" : "\n"];
    let offset = this.pdf.length + parts[0]!.length;
    const xref: [number, number, number][] = [];
    for (const number of [...this.added.keys()].sort((a, b) => a - b)) {
      const gen = this.gens.get(number) ?? 0;
      const object = `${number} ${gen} obj\n${this.added.get(number)}\nendobj\n`;
      xref.push([number, offset, gen]);
      parts.push(object);
      offset += object.length;
    }
    parts.push("xref\n");
    // Subsections of consecutive object numbers; every entry is 20 bytes (7.5.4).
    for (let i = 0; i < xref.length; ) {
      let j = i + 1;
      while (j < xref.length && xref[j]![0] === xref[j - 1]![0] + 1) j++;
      parts.push(`${xref[i]![0]} ${j - i}\n`);
      for (const [, at, gen] of xref.slice(i, j)) parts.push(`${String(at).padStart(10, "0")} ${String(gen).padStart(5, "0")} n \n`);
      i = j;
    }
    const trailer = new Map(this.trailer);
    trailer.set("Size", String(this.next));
    trailer.set("Prev", String(this.startxref));
    parts.push(`trailer\n${writeDict(trailer)}\nstartxref\n${offset}\n%%EOF\n`);
    const update = Buffer.from(parts.join(""), "latin1");
    const out = new Uint8Array(this.pdf.length + update.length);
    out.set(this.pdf);
    out.set(update, this.pdf.length);
    return out;
  }

  /** object reads an indirect object that must be a dictionary. */
  private object(ref: Ref): RawDict {
    const at = this.offsets.get(ref.number);
    if (!at || at.gen !== ref.gen || this.added.has(ref.number)) unexpected();
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

/** Unexpected: the file is not what Revision reads; open() answers null. */
class Unexpected extends Error {}

function unexpected(): never {
  throw new Unexpected();
}

function parseRef(value: string | undefined): Ref {
  const m = /^(\d+)\s+(\d+)\s+R$/.exec(value ?? "") ?? unexpected();
  return { number: Number(m[1]), gen: Number(m[2]) };
}

/** writeDict writes entries back as a dictionary. */
export function writeDict(dict: RawDict): string {
  return `<<${[...dict].map(([key, value]) => `/${key} ${value}`).join("\n")}>>`;
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
  // `n g R`: a reference reads as one value.
  const ref = /^\s+\d+\s+R(?=[\0\t\n\f\r ()<>[\]{}/%]|$)/.exec(text.slice(pos + word.length, pos + word.length + 24));
  return pos + word.length + (/^\d+$/.test(word) && ref ? ref[0].length : 0);
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
  while (end < text.length && !DELIMITER.test(text[end]!)) end++;
  return text.slice(pos, end);
}

function skip(text: string, pos: number): number {
  while (pos < text.length && WHITE.test(text[pos]!)) pos++;
  return pos;
}
