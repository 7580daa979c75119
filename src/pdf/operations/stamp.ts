/** operations/stamp: `stamp` and `watermark` — a text (Helvetica) or an image asset drawn over chosen pages, placed at
 * one of nine positions, turned about its centre, see-through. The two differ only in their defaults. */
import { degrees, rgb, StandardFonts, type PDFDocument, type PDFFont, type PDFImage, type PDFPage } from "pdf-lib";
import { OperationError, pageIndexes, type OpenedPdf } from "./open";

export const STAMP_POSITIONS = ["top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom", "bottom-right"] as const;
export type StampPosition = (typeof STAMP_POSITIONS)[number];

/** StampOptions are what a stamp or watermark request may set; the rest come from its kind's defaults. */
export interface StampOptions {
  text?: string;
  pages?: number[];
  position?: StampPosition;
  opacity?: number;
  rotation?: number;
  fontSize?: number;
  color?: string;
  width?: number;
}

/** The defaults of each kind: a stamp is small, opaque and in a corner; a watermark large, faint and diagonal. */
const DEFAULTS = {
  stamp: { position: "top-right", opacity: 1, rotation: 0, fontSize: 24, color: "#c00000" },
  watermark: { position: "center", opacity: 0.3, rotation: 45, fontSize: 72, color: "#808080" },
} as const;

const MARGIN = 36;
const STAMP_IMAGE_WIDTH = 144;

/** StampImage is an image asset's bytes and media type. */
export interface StampImage {
  bytes: Uint8Array;
  mediaType: string;
}

/** checkStampText throws an OperationError at /text when Helvetica (WinAnsi) cannot draw a character of it. */
export async function checkStampText(doc: PDFDocument, text: string): Promise<PDFFont> {
  const font = await doc.embedFont(StandardFonts.Helvetica);
  try {
    font.widthOfTextAtSize(text, 1);
    font.encodeText(text);
  } catch {
    throw new OperationError("/text", "has characters Helvetica cannot draw (it draws Latin-1, WinAnsi); use an image asset for other scripts");
  }
  return font;
}

/** stampPdf draws the text or image on the chosen pages and answers the document. */
export async function stampPdf(input: OpenedPdf, kind: "stamp" | "watermark", options: StampOptions, image?: StampImage): Promise<PDFDocument> {
  const { doc } = input;
  const settings = { ...DEFAULTS[kind], ...definedOf(options) };
  const pages = doc.getPages();
  const indexes = pageIndexes(options.pages, pages.length);
  if (image) {
    const embedded = await embedImage(doc, image);
    for (const index of indexes) drawImage(pages[index]!, embedded, kind, settings);
  } else {
    const font = await checkStampText(doc, options.text ?? "");
    for (const index of indexes) drawText(pages[index]!, font, options.text ?? "", settings);
  }
  return doc;
}

type Settings = { position: StampPosition; opacity: number; rotation: number; fontSize: number; color: string; width?: number };

function definedOf(options: StampOptions): Partial<Settings> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<Settings>;
}

async function embedImage(doc: PDFDocument, image: StampImage): Promise<PDFImage> {
  try {
    return image.mediaType === "image/png" ? await doc.embedPng(image.bytes) : await doc.embedJpg(image.bytes);
  } catch {
    throw new OperationError("/assetId", "the image asset cannot be read as PNG or JPEG");
  }
}

/** centre answers where the centre of a box of `w` × `h` goes on the page for `position`, MARGIN from the edges. */
function centre(page: PDFPage, position: StampPosition, w: number, h: number): { x: number; y: number } {
  const { width, height } = page.getSize();
  const [vertical, horizontal] = position === "center" ? ["center", "center"] : position.includes("-") ? position.split("-") : ["top", "bottom"].includes(position) ? [position, "center"] : ["center", position];
  const x = horizontal === "left" ? MARGIN + w / 2 : horizontal === "right" ? width - MARGIN - w / 2 : width / 2;
  const y = vertical === "top" ? height - MARGIN - h / 2 : vertical === "bottom" ? MARGIN + h / 2 : height / 2;
  return { x, y };
}

/** origin answers where to start drawing a box of `w` × `h` turned by `angle` (radians) so that its centre is `c`:
 * pdf-lib turns a drawing about its origin, its lower-left corner. */
function origin(c: { x: number; y: number }, w: number, h: number, angle: number): { x: number; y: number } {
  return { x: c.x - (Math.cos(angle) * w - Math.sin(angle) * h) / 2, y: c.y - (Math.sin(angle) * w + Math.cos(angle) * h) / 2 };
}

function drawText(page: PDFPage, font: PDFFont, text: string, s: Settings): void {
  const w = font.widthOfTextAtSize(text, s.fontSize);
  const h = font.heightAtSize(s.fontSize, { descender: false });
  const at = origin(centre(page, s.position, w, h), w, h, (s.rotation * Math.PI) / 180);
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(s.color.slice(i, i + 2), 16) / 255) as [number, number, number];
  page.drawText(text, { ...at, size: s.fontSize, font, color: rgb(r, g, b), opacity: s.opacity, rotate: degrees(s.rotation) });
}

function drawImage(page: PDFPage, image: PDFImage, kind: "stamp" | "watermark", s: Settings): void {
  const w = s.width ?? (kind === "stamp" ? STAMP_IMAGE_WIDTH : page.getSize().width / 2);
  const h = (w * image.height) / image.width;
  const at = origin(centre(page, s.position, w, h), w, h, (s.rotation * Math.PI) / 180);
  page.drawImage(image, { ...at, width: w, height: h, opacity: s.opacity, rotate: degrees(s.rotation) });
}
