/**
 * revision: changes appended to a PDF as an incremental update (ISO 32000-1 7.5.6) — new and replaced objects, a
 * cross-reference section for them and a trailer pointing back at the previous one — so the printed file is neither
 * parsed nor written again. It reads only what it needs (the last trailer, the table, the catalog: classic-file.ts),
 * and only the classic cross-reference table Chromium (Skia) writes; anything else answers null and the caller takes
 * the full path.
 */
import { ClassicFile, latin1, parseRef, type RawDict, type Ref } from "./classic-file";

/** Revision is one incremental update being built on a PDF. */
export class Revision {
  private readonly added = new Map<number, string>();
  /** The generation of each replaced object (a new object's is 0). */
  private readonly gens = new Map<number, number>();
  /** The new trailer: the file's, with this update's changes. */
  private readonly trailer: RawDict;
  private next: number;

  private constructor(private readonly file: ClassicFile) {
    this.trailer = new Map(file.trailer);
    this.next = Number(file.trailer.get("Size"));
  }

  /** open reads a PDF's last trailer and cross-reference table; null when the file is not one this can update. */
  static open(pdf: Uint8Array): Revision | null {
    const file = ClassicFile.open(pdf);
    return file && new Revision(file);
  }

  /** catalog answers the document catalog's reference and its entries, as the file has them. */
  catalog(): { ref: Ref; dict: ReadonlyMap<string, string> } {
    return this.file.catalog();
  }

  /** info answers the information dictionary as the file has it (empty when there is none). */
  info(): RawDict {
    return this.file.info();
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
    const parts: string[] = [this.file.pdf[this.file.pdf.length - 1] === 0x0a ? "" : "\n"];
    let offset = this.file.pdf.length + parts[0]!.length;
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
    trailer.set("Prev", String(this.file.startxref));
    parts.push(`trailer\n${writeDict(trailer)}\nstartxref\n${offset}\n%%EOF\n`);
    const update = Buffer.from(parts.join(""), "latin1");
    const out = new Uint8Array(this.file.pdf.length + update.length);
    out.set(this.file.pdf);
    out.set(update, this.file.pdf.length);
    return out;
  }
}

/** writeDict writes entries back as a dictionary. */
function writeDict(dict: RawDict): string {
  return `<<${[...dict].map(([key, value]) => `/${key} ${value}`).join("\n")}>>`;
}
