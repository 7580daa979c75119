/**
 * metadata: the information dictionary and XMP packet of a finished PDF (docs/pdf.md "Metadata"), written two ways with
 * the same result: through pdf-lib on a document finish.ts has loaded anyway, or — for a plain render, whose PDF needs
 * nothing else — appended to Chromium's file as an incremental update (pdf/revision.ts), which costs a fraction of a
 * pdf-lib load and save and grows the file by ~1.7 kB instead of rewriting it.
 */
import { parseDate, PDFDocument, PDFName, PDFString } from "pdf-lib";
import { VERSION } from "../version";
import type { RawDict } from "../pdf/classic-file";
import { Revision } from "../pdf/revision";
import type { FacturX, PdfMetadata, PdfStandard } from "./pdf-options";
import { xmpPacket } from "./xmp";

/** PRODUCER names renderd and its version in every finished PDF. */
export const PRODUCER = `renderd ${VERSION}`;

/** hex writes text as a hex string of UTF-16BE code units after a byte order mark — what pdf-lib's
 * `PDFHexString.fromText` writes, without the array and the padding helper it goes through per code unit (this runs for
 * every render's title, on the render's path). */
function hex(text: string): string {
  let out = "<FEFF";
  for (let i = 0; i < text.length; i++) out += text.charCodeAt(i).toString(16).toUpperCase().padStart(4, "0");
  return `${out}>`;
}
// Producer and Creator of every appended update: encoded once.
const PRODUCER_HEX = hex(PRODUCER);

type Metadata = PdfMetadata & { title: string };

/** setMetadata writes the information dictionary and the same facts as an XMP packet (what PDF/A and most viewers read). */
export function setMetadata(doc: PDFDocument, metadata: Metadata, standard: PdfStandard | undefined, facturX: FacturX | undefined): void {
  const now = new Date();
  doc.setTitle(metadata.title, { showInWindowTitleBar: true });
  if (metadata.author !== undefined) doc.setAuthor(metadata.author);
  if (metadata.subject !== undefined) doc.setSubject(metadata.subject);
  if (metadata.keywords !== undefined) doc.setKeywords(metadata.keywords);
  if (metadata.language !== undefined) doc.setLanguage(metadata.language);
  doc.setProducer(PRODUCER);
  doc.setCreator(PRODUCER);
  const created = doc.getCreationDate() ?? now;
  doc.setCreationDate(created);
  doc.setModificationDate(now);
  const xmp = xmpPacket({ ...metadata, producer: PRODUCER, created, modified: now, standard, facturX });
  const stream = doc.context.stream(new TextEncoder().encode(xmp), { Type: "Metadata", Subtype: "XML" });
  doc.catalog.set(PDFName.of("Metadata"), doc.context.register(stream));
}

/** appendMetadata answers the PDF with setMetadata's entries appended as an incremental update, or null when the file
 * is not one pdf/revision.ts reads (then the caller loads it with pdf-lib). */
export function appendMetadata(pdf: Uint8Array, metadata: Metadata): Uint8Array | null {
  const revision = Revision.open(pdf);
  if (!revision) return null;
  const catalog = revision.catalog();
  // setTitle's showInWindowTitleBar: Chromium writes this very dictionary; any other form goes through pdf-lib.
  const prefs = catalog.dict.get("ViewerPreferences");
  if (prefs !== undefined && !/^<<[^<>]*\/DisplayDocTitle\s+true[^<>]*>>$/.test(prefs)) return null;
  const now = new Date();
  const printed = revision.info().get("CreationDate");
  const created = printed === undefined ? undefined : dateOf(printed);
  const info: RawDict = new Map([["Title", hex(metadata.title)]]);
  if (metadata.author !== undefined) info.set("Author", hex(metadata.author));
  if (metadata.subject !== undefined) info.set("Subject", hex(metadata.subject));
  if (metadata.keywords !== undefined) info.set("Keywords", hex(metadata.keywords.join(" ")));
  info.set("Producer", PRODUCER_HEX).set("Creator", PRODUCER_HEX);
  info.set("CreationDate", PDFString.fromDate(created ?? now).toString()).set("ModDate", PDFString.fromDate(now).toString());
  revision.setInfo(info);
  const xmp = xmpPacket({ ...metadata, producer: PRODUCER, created: created ?? now, modified: now });
  const packet = revision.addStream(new Map([["Type", "/Metadata"], ["Subtype", "/XML"]]), new TextEncoder().encode(xmp));
  const entries = new Map(catalog.dict).set("Metadata", packet).set("ViewerPreferences", prefs ?? "<</DisplayDocTitle true>>");
  // The language tag's pattern (pdf-options.ts) leaves nothing to escape in a literal string.
  if (metadata.language !== undefined) entries.set("Lang", `(${metadata.language})`);
  revision.replace(catalog.ref, entries);
  return revision.bytes();
}

/** dateOf reads a PDF date string as written (`(D:20261123133907+00'00')`), or undefined. */
function dateOf(raw: string): Date | undefined {
  const m = /^\((D:[0-9+\-Z']+)\)$/.exec(raw);
  // The pattern leaves nothing for pdf-lib's string decoding to do (PDFString.decodeDate: ~20 µs a render in a running
  // server), so its date parser reads the text directly. A date it does not read gives way to the render's own time,
  // as on the full path.
  const date = m ? parseDate(m[1]!) : undefined;
  return date === undefined || Number.isNaN(date.getTime()) ? undefined : date;
}
