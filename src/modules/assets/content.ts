/** assets/content: does a file's content match its registered media type? Checked chunk by chunk while the upload
 * streams in, so no file is ever held whole in memory: magic bytes for binary formats, UTF-8 text for CSS, SVG and XML. */
import { XLSX, XML_MEDIA_TYPES, type MediaType } from "./model";

/** ContentCheck sees the upload's chunks in order, then says what is wrong with the content (null when it fits). */
export interface ContentCheck {
  update(chunk: Uint8Array): void;
  finish(): string | null;
}

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** MAGIC: the signatures a file of each binary media type starts with (any one of them). */
export const MAGIC: Readonly<Partial<Record<MediaType, { what: string; signatures: number[][] }>>> = {
  "image/png": { what: "a PNG image", signatures: [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]] },
  "image/jpeg": { what: "a JPEG image", signatures: [[0xff, 0xd8, 0xff]] },
  "font/woff2": { what: "a WOFF2 font", signatures: [ascii("wOF2")] },
  "font/ttf": { what: "a TrueType font", signatures: [[0x00, 0x01, 0x00, 0x00], ascii("true")] },
  "font/otf": { what: "an OpenType font", signatures: [ascii("OTTO")] },
  [XLSX]: { what: "an XLSX workbook (a ZIP file)", signatures: [[0x50, 0x4b, 0x03, 0x04]] },
  "application/pdf": { what: "a PDF document", signatures: [ascii("%PDF-")] },
};

/** SVG_HEAD_BYTES: the <svg> root element must start within the first 64 KiB. */
export const SVG_HEAD_BYTES = 64 * 1024;

/** XML_HEAD_BYTES: enough of an XML file to see where its markup starts. */
const XML_HEAD_BYTES = 1024;

/** Keeps the first `limit` bytes of a stream. */
class Head {
  private readonly bytes: Uint8Array;
  length = 0;
  constructor(private readonly limit: number) {
    this.bytes = new Uint8Array(limit);
  }
  add(chunk: Uint8Array): void {
    if (this.length >= this.limit) return;
    const take = Math.min(chunk.byteLength, this.limit - this.length);
    this.bytes.set(chunk.subarray(0, take), this.length);
    this.length += take;
  }
  get value(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/** Text checks the whole stream is UTF-8 without NUL bytes (a NUL in a text file means it is binary). */
class Text {
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });
  problem: string | null = null;
  private offset = 0;
  update(chunk: Uint8Array): void {
    if (this.problem) return;
    const nul = chunk.indexOf(0);
    if (nul >= 0) {
      this.problem = `holds a NUL byte at offset ${this.offset + nul}, so it is not a text file`;
      return;
    }
    this.offset += chunk.byteLength;
    try {
      this.decoder.decode(chunk, { stream: true });
    } catch {
      this.problem = "is not valid UTF-8 text";
    }
  }
  finish(): string | null {
    if (this.problem) return this.problem;
    try {
      this.decoder.decode();
    } catch {
      return "is not valid UTF-8 text (it ends inside a character)";
    }
    return null;
  }
}

function startsWith(bytes: Uint8Array, signature: number[]): boolean {
  return bytes.length >= signature.length && signature.every((b, i) => bytes[i] === b);
}

/** svgProblem reads the start of an SVG: after an optional BOM, whitespace, XML declaration or processing
 * instructions, comments and a DOCTYPE (without an internal subset, whose entities could expand without bound),
 * the first element must be <svg>. */
export function svgProblem(text: string): string | null {
  const s = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let i = 0;
  for (;;) {
    while (i < s.length && /\s/.test(s[i]!)) i++;
    if (s.startsWith("<?", i)) {
      const end = s.indexOf("?>", i + 2);
      if (end < 0) break;
      i = end + 2;
    } else if (s.startsWith("<!--", i)) {
      const end = s.indexOf("-->", i + 4);
      if (end < 0) break;
      i = end + 3;
    } else if (s.slice(i, i + 9).toUpperCase() === "<!DOCTYPE") {
      const end = s.indexOf(">", i);
      if (end < 0) break;
      if (s.slice(i, end).includes("[")) return "declares a DOCTYPE with an internal subset (entity declarations), which is not accepted";
      i = end + 1;
    } else break;
  }
  if (/^<svg[\s/>]/.test(s.slice(i, i + 5))) return null;
  return `is not an SVG image: its first element must be <svg>, within the first ${SVG_HEAD_BYTES / 1024} KiB`;
}

/** xmlProblem reads the start of an XML document: after an optional BOM and whitespace, markup (a declaration or the
 * root element). The XML is embedded as it is, never parsed by renderd, so its body is not checked. */
function xmlProblem(text: string): string | null {
  return /^\uFEFF?\s*</.test(text) ? null : "is not an XML document: it must start with <?xml … ?> or its root element";
}

/** contentCheck answers the check for a media type. */
export function contentCheck(mediaType: MediaType): ContentCheck {
  if (mediaType === "text/css") {
    const text = new Text();
    return {
      update: (c) => text.update(c),
      finish() {
        const problem = text.finish();
        return problem ? `The file ${problem}; a stylesheet must be UTF-8 text.` : null;
      },
    };
  }
  if (mediaType === "image/svg+xml") {
    const text = new Text();
    const head = new Head(SVG_HEAD_BYTES);
    return {
      update(c) {
        text.update(c);
        head.add(c);
      },
      finish() {
        const problem = text.finish() ?? svgProblem(new TextDecoder("utf-8").decode(head.value));
        return problem ? `The file ${problem}.` : null;
      },
    };
  }
  if ((XML_MEDIA_TYPES as readonly MediaType[]).includes(mediaType)) {
    const text = new Text();
    const head = new Head(XML_HEAD_BYTES);
    return {
      update(c) {
        text.update(c);
        head.add(c);
      },
      finish() {
        const problem = text.finish() ?? xmlProblem(new TextDecoder("utf-8").decode(head.value));
        return problem ? `The file ${problem}; an XML asset must be UTF-8 text.` : null;
      },
    };
  }
  const magic = MAGIC[mediaType]!;
  const longest = Math.max(...magic.signatures.map((s) => s.length));
  const head = new Head(longest);
  return {
    update: (c) => head.add(c),
    finish: () => (magic.signatures.some((s) => startsWith(head.value, s)) ? null : `The file does not start like ${magic.what} (${mediaType}).`),
  };
}
