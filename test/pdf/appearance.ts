/** appearance: what a visible signature's box shows — its text (pdftotext) and its ink (pdftoppm) — read from the PDF
 * at the box's place, in points from the page's top-left corner (72 dpi makes one pixel one point). */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Box is a page (from 1) and a rectangle on it, as `signature.visible` gives it. */
export interface Box {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

function cropped(tool: string, pdf: Uint8Array, box: Box, args: string[], password?: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), "renderd-box-"));
  try {
    const file = join(dir, "doc.pdf");
    writeFileSync(file, pdf);
    const page = String(box.page);
    const crop = ["-r", "72", "-x", String(box.x), "-y", String(box.y), "-W", String(box.width), "-H", String(box.height)];
    const run = Bun.spawnSync([tool, "-f", page, "-l", page, ...crop, ...args, ...(password ? ["-upw", password] : []), file, ...(tool === "pdftotext" ? ["-"] : [])]);
    if (run.exitCode !== 0) throw new Error(`${tool} failed: ${run.stderr.toString()}`);
    return run.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** textIn answers the text pdftotext reads inside the box. */
export function textIn(pdf: Uint8Array, box: Box, password?: string): string {
  return cropped("pdftotext", pdf, box, [], password).toString();
}

/** inkIn answers the share of the box's pixels that are not near white (0 for a blank area). */
export function inkIn(pdf: Uint8Array, box: Box, password?: string): number {
  const pgm = cropped("pdftoppm", pdf, box, ["-gray"], password);
  // A binary PGM: "P5\n<width> <height>\n255\n" then one byte per pixel.
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString("latin1"))!;
  const pixels = pgm.subarray(header[0].length);
  return pixels.filter((v) => v < 200).length / pixels.length;
}
