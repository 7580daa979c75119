/** rasterize: page images drawn by pdftoppm — checked against Ghostscript's own drawing of the same page, their sizes,
 * each format decoded by an independent decoder, and every reason a page cannot be drawn. */
import { describe, expect, test } from "bun:test";
import { degrees, PDFDocument, rgb, StandardFonts } from "pdf-lib";
import { encryptPdf } from "../../src/pdf/encrypt";
import { MAX_IMAGE_PIXELS, pixelsOf, rasterizePage, RasterError } from "../../src/pdf/rasterize";
import { blocks, decodePng, decodeWebp, difference, ghostscriptPage, jpegSize } from "./pixels";

async function letterPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const first = doc.addPage([612, 792]);
  first.drawText("Invoice 42", { x: 72, y: 700, size: 36, font });
  first.drawRectangle({ x: 72, y: 400, width: 300, height: 150, color: rgb(0.1, 0.4, 0.8) });
  const second = doc.addPage([612, 792]);
  second.drawText("Page two", { x: 72, y: 700, size: 24, font });
  second.setRotation(degrees(90));
  return doc.save();
}

const failure = async (work: Promise<unknown>) => {
  try {
    await work;
  } catch (e) {
    if (e instanceof RasterError) return e;
    throw e;
  }
  throw new Error("no RasterError");
};

describe("rasterizePage", () => {
  test("a PNG at 72 dpi is the page's size in points, and close to Ghostscript's drawing of the same page", async () => {
    const pdf = await letterPdf();
    const image = decodePng(await rasterizePage(pdf, 1, "png", { dpi: 72 }));
    expect([image.width, image.height]).toEqual([612, 792]);
    const diff = difference(blocks(image, 4), blocks(ghostscriptPage(pdf, 1, 72), 4));
    expect(diff.mean).toBeLessThan(2);
    expect(diff.differing).toBeLessThan(0.005);
    // The blue box is there, where the page has it (from the top: 792 - 550 = 242 pt).
    const at = (300 * 612 + 200) * 3;
    [0.1, 0.4, 0.8].forEach((channel, i) => expect(Math.abs(image.rgb[at + i]! - channel * 255)).toBeLessThanOrEqual(1));
  });

  test("a width scales the page to that many pixels; a turned page (/Rotate 90) is drawn turned", async () => {
    const pdf = await letterPdf();
    const wide = decodePng(await rasterizePage(pdf, 1, "png", { width: 300 }));
    expect([wide.width, wide.height]).toEqual([300, 389]);
    const turned = decodePng(await rasterizePage(pdf, 2, "png", { width: 396 }));
    expect([turned.width, turned.height]).toEqual([396, 306]);
  });

  test("JPEG and WebP decode to the same size", async () => {
    const pdf = await letterPdf();
    expect(jpegSize(await rasterizePage(pdf, 1, "jpeg", { dpi: 36 }))).toEqual({ width: 306, height: 396 });
    const webp = decodeWebp(await rasterizePage(pdf, 1, "webp", { width: 200 }));
    expect([webp.width, webp.height]).toEqual([200, 259]);
    expect(difference(webp, decodePng(await rasterizePage(pdf, 1, "png", { width: 200 }))).mean).toBeLessThan(3);
  });

  test("a page the PDF does not have, a PDF locked by a password, bytes that are no PDF and too many pixels each say so", async () => {
    const pdf = await letterPdf();
    expect((await failure(rasterizePage(pdf, 3, "png", { width: 100 }))).reason).toBe("no-page");
    const locked = await encryptPdf(pdf, { user: "open", owner: "own" });
    expect((await failure(rasterizePage(locked, 1, "png", { width: 100 }))).reason).toBe("encrypted");
    expect(decodePng(await rasterizePage(locked, 1, "png", { width: 100 }, "open")).width).toBe(100);
    expect((await failure(rasterizePage(new TextEncoder().encode("not a pdf"), 1, "png", { width: 100 }))).reason).toBe("damaged");
    const poster = await PDFDocument.create();
    poster.addPage([14_400, 14_400]);
    const tooLarge = await failure(rasterizePage(await poster.save(), 1, "png", { dpi: 100 }));
    expect(tooLarge.reason).toBe("too-large");
    expect(tooLarge.message).toContain(`${MAX_IMAGE_PIXELS}`);
  });

  test("pixelsOf: a width keeps the page's proportions; a dpi counts pixels per inch; both round up, as pdftoppm does", () => {
    expect(pixelsOf({ width: 612, height: 792 }, { width: 800 })).toEqual({ width: 800, height: 1036 });
    expect(pixelsOf({ width: 595, height: 842 }, { dpi: 150 })).toEqual({ width: 1240, height: 1755 });
  });
});
