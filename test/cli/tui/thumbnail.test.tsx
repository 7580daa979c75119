/** tui/thumbnail: a render's first page in Braille dots — the drawing rule on known pixels, and the component reading a
 * real stored PDF (DiskFiles) through pdftoppm: a page whose top half is black shows full cells above and empty below. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { render } from "ink-testing-library";
import { PDFDocument, rgb } from "pdf-lib";
import { brailleLines, Thumbnail, ThumbnailFiles } from "../../../cli/tui/thumbnail";
import { DiskFiles } from "../../../src/store/files-disk";

const dir = mkdtempSync(join(tmpdir(), "renderd-thumbnail-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the TUI's thumbnail", () => {
  test("brailleLines inks a dot per dark pixel, 2 × 4 to a character", () => {
    // 4 × 4 pixels: the left column black, the rest white.
    const rgbs = new Uint8Array(4 * 4 * 3).fill(255);
    for (let y = 0; y < 4; y++) rgbs.fill(0, y * 12, y * 12 + 3);
    expect(brailleLines({ width: 4, height: 4, rgb: rgbs })).toEqual(["\u2847\u2800"]);
  });

  test("shows a succeeded render's pages, size and first page from its stored PDF", async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([595, 842]);
    page.drawRectangle({ x: 0, y: 421, width: 595, height: 421, color: rgb(0, 0, 0) });
    doc.addPage([595, 842]);
    const pdf = await doc.save();
    const files = new DiskFiles(dir);
    const sha = await files.put("outputs", "test", pdf);
    const ui = render(
      <ThumbnailFiles.Provider value={files}>
        <Thumbnail render={{ outputSha256: sha, pages: 2, bytes: pdf.length }} />
      </ThumbnailFiles.Provider>,
    );
    const until = Date.now() + 10_000;
    while (!ui.lastFrame()!.includes("\u28ff") && Date.now() < until) await Bun.sleep(20);
    const frame = ui.lastFrame()!;
    expect(frame).toContain("2 pages · 1 kB");
    const rows = frame.split("\n").filter((l) => l.includes("\u2800") || l.includes("\u28ff"));
    // 40 × 57 dots: 15 rows; the top ones full, the bottom ones empty.
    expect(rows.length).toBeGreaterThanOrEqual(14);
    expect(rows[1]).toContain("\u28ff".repeat(20));
    expect(rows.at(-2)).toContain("\u2800".repeat(20));
    ui.unmount();
  });
});
