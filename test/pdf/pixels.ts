/** pixels: decodes the page images the tests compare — any 8-bit RGB PNG (every row filter), binary PPM, and WebP
 * through libwebp's own dwebp — and measures how far two images are apart. */
import { inflateSync } from "node:zlib";

/** Image is 8-bit RGB pixels, row by row. */
export interface Image {
  width: number;
  height: number;
  rgb: Uint8Array;
}

/** decodePng reads an 8-bit RGB, non-interlaced PNG, checking every chunk's CRC. */
export function decodePng(png: Uint8Array): Image {
  const b = Buffer.from(png);
  if (!b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) throw new Error("not a PNG");
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  for (let at = 8; at < b.length; ) {
    const length = b.readUInt32BE(at);
    const type = b.toString("latin1", at + 4, at + 8);
    const data = b.subarray(at + 8, at + 8 + length);
    if ((Bun.hash.crc32(b.subarray(at + 4, at + 8 + length)) >>> 0) !== b.readUInt32BE(at + 8 + length)) throw new Error(`bad CRC in ${type}`);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[9] !== 2 || data[12] !== 0) throw new Error("not 8-bit RGB non-interlaced");
    } else if (type === "IDAT") idat.push(data);
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * 3;
  const rgb = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x]!;
      const a = x >= 3 ? rgb[y * stride + x - 3]! : 0;
      const up = y > 0 ? rgb[(y - 1) * stride + x]! : 0;
      const c = x >= 3 && y > 0 ? rgb[(y - 1) * stride + x - 3]! : 0;
      const p = a + up - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - up) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - up) <= Math.abs(p - c) ? up : c;
      const predicted = [0, a, up, (a + up) >> 1, paeth][filter];
      if (predicted === undefined) throw new Error(`unknown filter ${filter}`);
      rgb[y * stride + x] = (v + predicted) & 0xff;
    }
  }
  return { width, height, rgb };
}

/** decodePpm reads a binary PPM (P6, 8 bits), as Ghostscript's ppmraw and dwebp -ppm write it. */
export function decodePpm(ppm: Uint8Array): Image {
  // Ghostscript writes a comment line after the magic number.
  const m = /^P6\s+(?:#[^\n]*\n\s*)*(\d+)\s+(\d+)\s+255\s/.exec(Buffer.from(ppm.subarray(0, 200)).toString("latin1"));
  if (!m) throw new Error("not a binary PPM");
  return { width: Number(m[1]), height: Number(m[2]), rgb: ppm.subarray(m[0].length) };
}

/** decodeWebp decodes a WebP with libwebp's dwebp. */
export function decodeWebp(webp: Uint8Array): Image {
  const run = Bun.spawnSync(["dwebp", "-quiet", "-ppm", "-o", "-", "--", "-"], { stdin: webp });
  if (run.exitCode !== 0) throw new Error(`dwebp: ${run.stderr.toString()}`);
  return decodePpm(run.stdout);
}

/** jpegSize reads a baseline or progressive JPEG's width and height from its frame header. */
export function jpegSize(jpeg: Uint8Array): { width: number; height: number } {
  const b = Buffer.from(jpeg);
  if (b[0] !== 0xff || b[1] !== 0xd8) throw new Error("not a JPEG");
  for (let at = 2; at < b.length; ) {
    const marker = b[at + 1]!;
    const length = b.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xc2) return { height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) };
    at += 2 + length;
  }
  throw new Error("no JPEG frame header");
}

/** difference compares two images over the area they share: the mean absolute difference per channel (0..255) and the
 * share of pixels whose channels differ by more than 64 (a visible difference, not anti-aliasing). */
export function difference(a: Image, b: Image): { mean: number; differing: number } {
  const width = Math.min(a.width, b.width);
  const height = Math.min(a.height, b.height);
  let sum = 0;
  let differing = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let worst = 0;
      for (let c = 0; c < 3; c++) {
        const d = Math.abs(a.rgb[(y * a.width + x) * 3 + c]! - b.rgb[(y * b.width + x) * 3 + c]!);
        sum += d;
        worst = Math.max(worst, d);
      }
      if (worst > 64) differing++;
    }
  return { mean: sum / (width * height * 3), differing: differing / (width * height) };
}

/** ghostscriptPage rasterises page `page` of a PDF with Ghostscript at `dpi`: an independent rasteriser to compare with. */
export function ghostscriptPage(pdf: Uint8Array, page: number, dpi: number): Image {
  const run = Bun.spawnSync(
    ["gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=ppmraw", `-r${dpi}`, "-dTextAlphaBits=4", "-dGraphicsAlphaBits=4", `-dFirstPage=${page}`, `-dLastPage=${page}`, "-sOutputFile=-", "-"],
    { stdin: pdf },
  );
  if (run.exitCode !== 0) throw new Error(`gs: ${run.stderr.toString()}`);
  return decodePpm(run.stdout);
}

/** blocks averages `size` × `size` blocks of pixels into one: a comparison at that scale sees the same picture where two
 * rasterisers place an anti-aliased edge a pixel apart. */
export function blocks(image: Image, size: number): Image {
  const width = Math.floor(image.width / size);
  const height = Math.floor(image.height / size);
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        for (let dy = 0; dy < size; dy++) for (let dx = 0; dx < size; dx++) sum += image.rgb[((y * size + dy) * image.width + x * size + dx) * 3 + c]!;
        rgb[(y * width + x) * 3 + c] = Math.round(sum / (size * size));
      }
  return { width, height, rgb };
}
