/** bench/conversions: how long a PDF takes to become a template draft (extract, detect, build; no model), and the
 * longest the event loop is held meanwhile — the figures of docs/conversions.md "Limits". No Chromium: the PDFs are
 * made with pdf-lib. Run: node_modules/.bin/bun bench/conversions.ts */
import { PDFDocument, StandardFonts } from "pdf-lib";
import { createLogger } from "../src/logger";
import { convertPdf } from "../src/modules/template-conversions/convert";

async function textPdf(pages: number, lines: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([595, 842]);
    for (let l = 0; l < lines; l++) {
      const day = String(1 + (l % 28)).padStart(2, "0");
      page.drawText(`Line ${l} of page ${p}: item ${l} costs $${l}.50 on 2026-03-${day}`, { x: 40, y: 800 - l * 12, size: 9, font });
    }
  }
  return await doc.save();
}

const log = createLogger("silent");
for (const [name, pdf] of [["1 page, 20 lines", await textPdf(1, 20)], ["50 pages, 60 lines each", await textPdf(50, 60)]] as const) {
  for (let run = 1; run <= 3; run++) {
    let last = performance.now();
    let held = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      held = Math.max(held, now - last);
      last = now;
    }, 1);
    const started = performance.now();
    const built = await convertPdf(pdf, { model: "none", timeoutMs: 1 }, log);
    const ms = performance.now() - started;
    clearInterval(ticker);
    held = Math.max(held, performance.now() - last);
    console.log(`${name} (run ${run}): ${Math.round(ms)} ms, event loop held at most ${Math.round(held)} ms, ${Object.keys(built.sampleData).length} fields`);
  }
}
