/** sign-appearance: the visible box of a signature (`signature.visible`, issue 13) — its place on the page and the
 * appearance stream drawn there: "Digitally signed by <signer>", the date, the reason and the location. */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { measureText, ops, PdfArray, PdfDict, PdfName, PdfNumber, PdfRef, PdfStream, PdfString, type EmbeddedFont, type PDF } from "@libpdf/core";
import { Type, type Static } from "@sinclair/typebox";

// 14400 pt (200 in) is the largest page size PDF allows (ISO 32000-1 annex C).
const Length = (minimum: number, description: string) => Type.Number({ minimum, maximum: 14_400, description: `${description}, in points (1/72 in), ${minimum} to 14400.` });

/** SignatureVisible places the signature's box: a page (from 1) and a rectangle in points (1/72 in) measured from the
 * page's top-left corner, as the document's own layout is. */
export const SignatureVisible = Type.Object(
  {
    page: Type.Integer({ minimum: 1, maximum: 100_000, description: "The page the box is drawn on, from 1." }),
    x: Length(0, "From the page's left edge to the box"),
    y: Length(0, "From the page's top edge to the box"),
    width: Length(10, "The box's width"),
    height: Length(10, "The box's height"),
  },
  { additionalProperties: false, description: "Draw the signature's box on a page; without it the signature is invisible." },
);
export type SignatureVisible = Static<typeof SignatureVisible>;

/** AppearanceText is what the box says besides the signer's name. */
export interface AppearanceText {
  signingTime: Date;
  reason?: string;
  location?: string;
}

/** VisiblePlacementError says why the box does not fit the document; the message names the field to change. */
export class VisiblePlacementError extends Error {}

// Liberation Sans (Debian's fonts-liberation, which install.sh installs for Chromium) is embedded, as PDF/A requires
// of every font that is drawn: a PDF/A document keeps conforming with a visible signature.
const FONT_FILE = "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf";
const PADDING = 3;
const LEADING = 1.25;
const MAX_FONT_SIZE = 10;
const MIN_FONT_SIZE = 4;
const NEWLINE = Uint8Array.of(0x0a);

/** placeVisibleSignature turns the signature field `fieldName` (made by PDF.sign, which gives it an empty rectangle on
 * the first page) into a widget on `visible.page` with the box drawn as its normal appearance, listed in that page's
 * annotations. It throws VisiblePlacementError for a page or a rectangle outside the document. */
export function placeVisibleSignature(pdf: PDF, fieldName: string, visible: SignatureVisible, signerCertificate: Uint8Array, text: AppearanceText): void {
  const page = pdf.getPage(visible.page - 1);
  if (!page)
    throw new VisiblePlacementError(`signature.visible.page (/signature/visible/page) is ${visible.page}, but the PDF has ${pdf.getPageCount()} pages.`);
  const box = page.getCropBox();
  if (visible.x + visible.width > box.width || visible.y + visible.height > box.height)
    throw new VisiblePlacementError(
      `The signature box (/signature/visible) ends at x ${visible.x + visible.width}, y ${visible.y + visible.height}, outside page ${visible.page} (${box.width} × ${box.height} pt).`,
    );
  const field = pdf.getForm()?.getField(fieldName);
  if (!field) throw new Error(`The signature field ${fieldName} was not created.`);
  const widget = field.getDict();
  const left = box.x + visible.x;
  const bottom = box.y + box.height - visible.y - visible.height;
  widget.set("Rect", numbers([left, bottom, left + visible.width, bottom + visible.height]));
  widget.set("P", page.ref);
  const font = pdf.embedFont(fontProgram());
  widget.set("AP", PdfDict.of({ N: pdf.register(appearanceStream(font, visible.width, visible.height, lines(signerCertificate, text))) }));
  const resolve = (ref: PdfRef) => pdf.getObject(ref);
  // The field's own reference is not public: it is the entry of the form's /Fields that resolves to its dictionary.
  const fields = pdf.getCatalog().getDict("AcroForm", resolve)?.getArray("Fields", resolve);
  const ref = fields?.toArray().find((entry): entry is PdfRef => entry instanceof PdfRef && pdf.getObject(entry) === widget);
  if (!ref) throw new Error(`The signature field ${fieldName} is not listed in the form.`);
  const annots = page.dict.getArray("Annots", resolve);
  if (annots) annots.push(ref);
  else page.dict.set("Annots", new PdfArray([ref]));
}

function numbers(values: number[]): PdfArray {
  return new PdfArray(values.map((v) => PdfNumber.of(v)));
}

/** signerName is the certificate subject's common name, or its whole subject when it has none. */
function signerName(certificate: Uint8Array): string {
  const subject = new X509Certificate(certificate).subject;
  return /^CN=(.*)$/m.exec(subject)?.[1] ?? subject.replaceAll("\n", ", ");
}

let fontBytes: Uint8Array | undefined;

/** fontProgram answers the font file's bytes, read once. */
function fontProgram(): Uint8Array {
  try {
    fontBytes ??= new Uint8Array(readFileSync(FONT_FILE));
  } catch {
    throw new Error(`The font for the signature box, ${FONT_FILE}, cannot be read: install Debian's fonts-liberation (install.sh does).`);
  }
  return fontBytes;
}

function lines(certificate: Uint8Array, text: AppearanceText): string[] {
  const date = text.signingTime.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
  return [
    `Digitally signed by ${signerName(certificate)}`,
    `Date: ${date}`,
    ...(text.reason ? [`Reason: ${text.reason}`] : []),
    ...(text.location ? [`Location: ${text.location}`] : []),
  ];
}

/** appearanceStream is the box's form XObject: a light panel with a border and the lines at the largest size (up to
 * 10 pt) that fits, clipped to the box when even 4 pt does not. */
function appearanceStream(font: EmbeddedFont, width: number, height: number, text: string[]): PdfStream {
  const inner = width - 2 * PADDING;
  const widest = Math.max(...text.map((line) => measureText(line, font, 1)));
  const size = Math.max(MIN_FONT_SIZE, Math.min(MAX_FONT_SIZE, inner / widest, (height - 2 * PADDING) / (text.length * LEADING)));
  const operators = [
    ops.pushGraphicsState(),
    ops.rectangle(0, 0, width, height),
    ops.clip(),
    ops.endPath(),
    ops.setNonStrokingRGB(0.95, 0.97, 1),
    ops.rectangle(0, 0, width, height),
    ops.fill(),
    ops.setStrokingRGB(0.16, 0.33, 0.6),
    ops.setLineWidth(1),
    ops.rectangle(0.5, 0.5, width - 1, height - 1),
    ops.stroke(),
    ops.beginText(),
    ops.setFont("/F0", size),
    ops.setNonStrokingRGB(0.1, 0.1, 0.1),
    ops.moveText(PADDING, height - PADDING - size),
    ...text.flatMap((line, i) => [...(i ? [ops.moveText(0, -size * LEADING)] : []), ops.showText(glyphs(font, line))]),
    ops.endText(),
    ops.popGraphicsState(),
  ];
  const content = Buffer.concat(operators.flatMap((o) => [o.toBytes(), NEWLINE]));
  return new PdfStream(
    PdfDict.of({
      Type: PdfName.of("XObject"),
      Subtype: PdfName.of("Form"),
      BBox: numbers([0, 0, width, height]),
      Resources: PdfDict.of({ Font: PdfDict.of({ F0: font.ref }) }),
    }),
    content,
  );
}

/** glyphs is a line as the embedded font's two-byte glyph ids (Identity-H, CIDToGIDMap /Identity, as @libpdf/core
 * writes embedded fonts); encodeText also marks the glyphs the subset keeps. A character the font lacks shows as
 * its .notdef glyph. */
function glyphs(font: EmbeddedFont, line: string): PdfString {
  const gids = font.encodeText(line).map((codePoint) => font.codePointToGid(codePoint));
  return new PdfString(Uint8Array.from(gids.flatMap((gid) => [gid >> 8, gid & 0xff])), "hex");
}
