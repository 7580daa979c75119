/**
 * bench/pdf: what the PDF options cost per document (issue 13, docs/performance.md "Tagged PDFs and the finishing
 * pass") — the bench's one-page invoice rendered through the compiled binary, plain and with `pdf: {tagged: true}`
 * alternating (so both see the same shared machine), 2 warm-ups each, then the median of `--docs` each.
 *
 *   bun bench/pdf.ts [--docs 20] [--binary dist/renderd]
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { INVOICE_TEMPLATE, invoiceData } from "./documents";
import { publishTemplate, renderOnce, startServer, type Timing } from "./server";

const { values } = parseArgs({ options: { docs: { type: "string", default: "20" }, binary: { type: "string", default: "dist/renderd" } } });
const DOCS = Number(values.docs);
const WARM_UP = 2;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const server = await startServer({ binary: resolve(import.meta.dir, "..", values.binary!), workers: "1" });
try {
  const templateId = await publishTemplate(server, "Invoice", INVOICE_TEMPLATE);
  const series = { plain: {}, tagged: { tagged: true, metadata: { language: "en" } } } as const;
  const timings: Record<keyof typeof series, Timing[]> = { plain: [], tagged: [] };
  for (let i = 0; i < WARM_UP + DOCS; i++)
    for (const name of ["plain", "tagged"] as const) {
      const timing = await renderOnce(server, JSON.stringify({ templateId, data: invoiceData(), pdf: series[name] }));
      if (i >= WARM_UP) timings[name].push(timing);
    }
  console.log(`| series (one-page invoice, ${DOCS} each) | POST→200 median | print + finish median |`);
  console.log("| --- | ---: | ---: |");
  for (const name of ["plain", "tagged"] as const)
    console.log(`| ${name} | ${median(timings[name].map((t) => t.ms)).toFixed(1)} ms | ${median(timings[name].map((t) => t.print)).toFixed(1)} ms |`);
} finally {
  await server.stop();
}
