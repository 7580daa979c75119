/** fixtures: documents, readers and a browser shared by the tests that render real PDFs (through the pool or on bare pages). */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { chromiumArgs } from "../../src/render/browser";

/** launchBrowser starts Chromium with the pool's switches, for the tests that drive pages without the pool. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: chromiumArgs({ asRoot: process.getuid?.() === 0 }) });
}

/** RENDER_CONTEXT is the part of the pool's browser context (guard.ts) a printed page depends on: no scripts, offline. */
export const RENDER_CONTEXT = { javaScriptEnabled: false, offline: true };

/** slowHtml is raw HTML that takes Chromium about 1.4 s per page to print (blurred shadows): a render that stays
 * `processing` long enough to be cancelled, killed or interrupted by a restart. */
export function slowHtml(pages: number, label = "slow"): string {
  const line = `<p style="box-shadow:0 0 30px 10px rgba(0,0,0,.5);filter:blur(1px)">${label} lorem ipsum dolor sit amet</p>`;
  return Array.from({ length: pages }, () => `<div style="page-break-after:always">${line.repeat(30)}</div>`).join("");
}

/** pdfText answers the text pdftotext reads from a PDF, whitespace collapsed; `-nodiag` leaves out the diagonal TEST
 * mark a test render carries (docs/pdf.md), so the text is the document's own. */
export function pdfText(pdf: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), "renderd-pdf-"));
  try {
    const file = join(dir, "out.pdf");
    writeFileSync(file, pdf);
    const run = Bun.spawnSync(["pdftotext", "-layout", "-nodiag", file, "-"]);
    if (run.exitCode !== 0) throw new Error(`pdftotext failed: ${run.stderr.toString()}`);
    return run.stdout.toString().replace(/\s+/g, " ").trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
