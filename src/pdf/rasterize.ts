/**
 * rasterize: one page of a PDF as a PNG, JPEG or WebP image (issue 30; docs/pdf.md "Page images"). Poppler's
 * `pdftoppm` draws the page (the rasteriser chosen for fidelity, speed and licence: docs/pdf.md says why); it writes
 * JPEG itself, and raw pixels (PPM) that are encoded here as PNG (node:zlib) or handed to libwebp's `cwebp`.
 */
import { availableParallelism } from "node:os";
import { promisify } from "node:util";
import { crc32, deflate } from "node:zlib";
import { runTool, ToolFailed } from "./tool";

export const IMAGE_FORMATS = ["png", "jpeg", "webp"] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

export const MEDIA_TYPE_OF_FORMAT: Record<ImageFormat, string> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" };

/** The bounds of the size of a page image: a width in pixels, or a resolution. */
export const IMAGE_WIDTH = { minimum: 16, maximum: 4000, default: 800 } as const;
export const IMAGE_DPI = { minimum: 18, maximum: 600 } as const;
/** MAX_IMAGE_PIXELS: a page image holds at most 40 million pixels (an A4 or Letter page at 600 dpi is ~35 million), so a
 * poster-sized page at a high dpi cannot take the server's memory (its raw pixels are 3 bytes each). */
export const MAX_IMAGE_PIXELS = 40_000_000;

/** ImageSize is how large the image is drawn: `width` pixels wide, or at `dpi` (pixels per inch of the page). */
export type ImageSize = { width: number } | { dpi: number };

/** RasterError says why a page cannot be drawn; `reason` tells the caller which answer to give. */
export class RasterError extends Error {
  constructor(
    readonly reason: "no-page" | "encrypted" | "damaged" | "too-large",
    message: string,
  ) {
    super(message);
  }
}

const JPEG_QUALITY = 90;
// Lossy WebP at quality 90 keeps text crisp; method 2 costs ~40 ms a Letter page at 96 dpi against ~58 ms for the
// default 4, for ~2% more bytes (docs/pdf.md "Page images").
const WEBP_ARGS = ["-quiet", "-q", "90", "-m", "2"];
const POINTS_PER_INCH = 72;

// pdftoppm and cwebp are CPU-bound: at most one per core at once, the rest wait their turn.
const slots = { free: availableParallelism(), waiting: [] as (() => void)[] };

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (slots.free > 0) slots.free--;
  else await new Promise<void>((resolve) => slots.waiting.push(resolve));
  try {
    return await work();
  } finally {
    const next = slots.waiting.shift();
    if (next) next();
    else slots.free++;
  }
}

/** PageGeometry is a page's size in points as shown (its /Rotate applied) and the document's page count. */
export interface PageGeometry {
  pages: number;
  width: number;
  height: number;
  /** Turned a quarter (/Rotate 90 or 270): shown width and height are the page's height and width. */
  turned: boolean;
}

/** pageGeometry reads the document's page count and page `page`'s size with pdfinfo; RasterError for a page the PDF does
 * not have, an encrypted PDF without its password, or a file poppler cannot read. */
export async function pageGeometry(pdf: Uint8Array, page: number, password?: string): Promise<PageGeometry> {
  let text: string;
  try {
    const args = [...(password === undefined ? [] : ["-upw", password]), "-f", String(page), "-l", String(page), "-"];
    text = new TextDecoder().decode((await runTool("pdfinfo", { args, stdin: pdf })).stdout);
  } catch (e) {
    if (e instanceof ToolFailed && /password/i.test(e.stderr)) throw new RasterError("encrypted", "The PDF is encrypted with a password that opens it.");
    // pdfinfo refuses a page past the last one: "… can not be after the last page (10)".
    const last = e instanceof ToolFailed ? /last page \((\d+)\)/.exec(e.stderr) : null;
    if (last) throw new RasterError("no-page", noPage(Number(last[1]), page));
    if (e instanceof ToolFailed && e.code !== -1) throw new RasterError("damaged", "The PDF cannot be read.");
    throw e;
  }
  const pages = Number(/^Pages:\s+(\d+)/m.exec(text)?.[1] ?? 0);
  const size = /^Page\s+\d+\s+size:\s+([\d.]+) x ([\d.]+)/m.exec(text);
  if (page > pages || !size) throw new RasterError("no-page", noPage(pages, page));
  const turned = Number(/^Page\s+\d+\s+rot:\s+(\d+)/m.exec(text)?.[1] ?? 0) % 180 !== 0;
  const [w, h] = [Number(size[1]), Number(size[2])];
  return { pages, width: turned ? h : w, height: turned ? w : h, turned };
}

function noPage(pages: number, page: number): string {
  return `The PDF has ${pages} page${pages === 1 ? "" : "s"}; there is no page ${page}.`;
}

/** pixelsOf answers the image's width and height in pixels for a page of `geometry` drawn at `size`. */
export function pixelsOf(geometry: Pick<PageGeometry, "width" | "height">, size: ImageSize): { width: number; height: number } {
  // pdftoppm rounds up: so does the answer, which is the drawn image's size.
  if ("width" in size) return { width: size.width, height: Math.max(1, Math.ceil((size.width * geometry.height) / geometry.width)) };
  const scale = size.dpi / POINTS_PER_INCH;
  return { width: Math.max(1, Math.ceil(geometry.width * scale)), height: Math.max(1, Math.ceil(geometry.height * scale)) };
}

/** rasterizePage draws page `page` (from 1) of the PDF as an image of `format` at `size`; RasterError when the page does
 * not exist, the PDF cannot be opened, or the image would hold more than MAX_IMAGE_PIXELS. */
export async function rasterizePage(pdf: Uint8Array, page: number, format: ImageFormat, size: ImageSize, password?: string): Promise<Uint8Array> {
  return inTurn(async () => {
    const geometry = await pageGeometry(pdf, page, password);
    const pixels = pixelsOf(geometry, size);
    if (pixels.width * pixels.height > MAX_IMAGE_PIXELS)
      throw new RasterError(
        "too-large",
        `Page ${page} (${geometry.width} × ${geometry.height} pt) would be ${pixels.width} × ${pixels.height} pixels; at most ${MAX_IMAGE_PIXELS} pixels are drawn. Ask for a smaller width or dpi.`,
      );
    // pdftoppm's -scale-to-x is along the unturned page: a turned page's shown width is its -scale-to-y.
    const along = geometry.turned ? ["-scale-to-x", "-1", "-scale-to-y"] : ["-scale-to-y", "-1", "-scale-to-x"];
    const scale = "width" in size ? [...along, String(size.width)] : ["-r", String(size.dpi)];
    const common = [...(password === undefined ? [] : ["-upw", password]), "-f", String(page), "-l", String(page), "-singlefile", ...scale];
    if (format === "jpeg") return (await runTool("pdftoppm", { args: ["-jpeg", "-jpegopt", `quality=${JPEG_QUALITY}`, ...common, "-"], stdin: pdf })).stdout;
    const ppm = (await runTool("pdftoppm", { args: [...common, "-"], stdin: pdf })).stdout;
    if (format === "png") return encodePng(ppm);
    return (await runTool("cwebp", { args: [...WEBP_ARGS, "{page.ppm}", "-o", "-"], files: { "page.ppm": ppm } })).stdout;
  });
}

/** Pixels are 8-bit RGB values, row by row. */
export interface Pixels {
  width: number;
  height: number;
  rgb: Uint8Array;
}

/** pagePixels draws page `page` `width` pixels wide and answers its raw pixels (for a terminal's block drawing). */
export async function pagePixels(pdf: Uint8Array, page: number, width: number): Promise<Pixels> {
  return inTurn(async () => {
    const ppm = (await runTool("pdftoppm", { args: ["-f", String(page), "-l", String(page), "-singlefile", "-scale-to-x", String(width), "-scale-to-y", "-1", "-"], stdin: pdf })).stdout;
    const { width: w, height, offset } = ppmHeader(ppm);
    return { width: w, height, rgb: ppm.subarray(offset) };
  });
}

function ppmHeader(ppm: Uint8Array): { width: number; height: number; offset: number } {
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(Buffer.from(ppm.subarray(0, 64)).toString("latin1"));
  if (!header) throw new Error("pdftoppm wrote no binary PPM");
  return { width: Number(header[1]), height: Number(header[2]), offset: header[0].length };
}

const deflateAsync = promisify(deflate);
const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

/** encodePng turns pdftoppm's binary PPM (P6, 8 bits) into an 8-bit RGB PNG. pdftoppm's own PNG spends ~125 ms of a
 * Letter page at 96 dpi in libpng's per-row filter search; rows left unfiltered and deflated at level 6 (in the thread
 * pool) take ~10 ms and come out smaller for document pages (docs/pdf.md "Page images"). */
export async function encodePng(ppm: Uint8Array): Promise<Uint8Array> {
  const { width, height, offset } = ppmHeader(ppm);
  const stride = width * 3;
  const raw = Buffer.alloc((stride + 1) * height);
  // Each row starts with its filter type, 0 (none).
  for (let y = 0; y < height; y++) raw.set(ppm.subarray(offset + y * stride, offset + (y + 1) * stride), y * (stride + 1) + 1);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter method choice, not interlaced
  return Buffer.concat([PNG_SIGNATURE, chunk("IHDR", ihdr), chunk("IDAT", await deflateAsync(raw, { level: 6 })), chunk("IEND", Buffer.alloc(0))]);
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}
