/** page-images: a page of a stored PDF as an image, drawn once and kept (issue 30; docs/pdf.md "Page images"): the
 * page route and a render's image output ask here; a second ask for the same page, format and size is served from the
 * file store. Asks for the same image at once share one drawing. */
import type { Clock } from "../lib/clock";
import { sha256Hex } from "../lib/hash";
import { rasterizePage, type ImageFormat, type ImageSize } from "../pdf/rasterize";
import { awaitFileHold, releaseFile } from "../store/file-deletions";
import type { FileStore } from "../store/files";
import { cachedPageImage, keepPageImage } from "../store/page-images";
import type { Store } from "../store/store";

export interface PageImageDeps {
  store: Store;
  clock: Clock;
  files: FileStore;
}

/** PageImageAsk is which image of a page: its format and size, and the password that opens an encrypted PDF. */
export interface PageImageAsk {
  format: ImageFormat;
  size: ImageSize;
  password?: string;
}

/** variantOf names an image of a page by format and size in the cache: `png:w800`, `webp:d150`. */
export function variantOf(format: ImageFormat, size: ImageSize): string {
  return "width" in size ? `${format}:w${size.width}` : `${format}:d${size.dpi}`;
}

const drawing = new Map<string, Promise<{ sha256: string; bytes: number }>>();

/** pageImage answers the stored image of page `page` of the PDF `pdfSha256` (an `outputs` file), drawing and keeping it
 * first when it is not kept yet (or its bytes are gone, as after a restore: images are not backed up). It throws the
 * rasteriser's RasterError when the page cannot be drawn, and null when the PDF itself is gone. */
export async function pageImage(deps: PageImageDeps, pdfSha256: string, page: number, ask: PageImageAsk): Promise<{ sha256: string; bytes: number } | null> {
  const variant = variantOf(ask.format, ask.size);
  const kept = await cachedPageImage(deps.store, pdfSha256, page, variant);
  if (kept && (await deps.files.stat("outputs", kept.sha256))) return kept;
  const key = `${pdfSha256}:${page}:${variant}`;
  let pending = drawing.get(key);
  if (!pending) {
    const pdf = await deps.files.read("outputs", pdfSha256);
    if (!pdf) return null;
    pending = drawPageImage(deps, pdf, pdfSha256, page, ask).finally(() => drawing.delete(key));
    drawing.set(key, pending);
  }
  return pending;
}

/** drawPageImage draws page `page` of `pdf` (whose sha256 is `pdfSha256`) and keeps it in the cache. */
export async function drawPageImage(deps: PageImageDeps, pdf: Uint8Array, pdfSha256: string, page: number, ask: PageImageAsk): Promise<{ sha256: string; bytes: number }> {
  const { store, clock, files } = deps;
  const variant = variantOf(ask.format, ask.size);
  const image = await rasterizePage(pdf, page, ask.format, ask.size, ask.password);
  const sha256 = sha256Hex(image);
  const holder = `img:${pdfSha256.slice(0, 16)}:${page}:${variant}`;
  // Held, stored, then recorded in the transaction that lets the hold go (store/file-deletions.ts), as a render's PDF.
  await awaitFileHold(store, clock, "outputs", sha256, holder);
  try {
    await files.put("outputs", holder, image);
    // Sent in this order (one round trip on PostgreSQL): the release sees the row naming the image.
    await store.tx((tx) => Promise.all([keepPageImage(tx, clock, { pdfSha256, page, variant, sha256, bytes: image.byteLength }), releaseFile(tx, clock, "outputs", sha256, holder)]));
  } catch (e) {
    await store.tx((tx) => releaseFile(tx, clock, "outputs", sha256, holder));
    throw e;
  }
  return { sha256, bytes: image.byteLength };
}
