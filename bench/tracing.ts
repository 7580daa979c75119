/**
 * bench/tracing: what OpenTelemetry tracing costs. Two `dist/renderd serve` processes on DATA_DIRs of their own — one
 * without OTEL_EXPORTER_OTLP_ENDPOINT (the default), one exporting to an OTLP/HTTP receiver in this process — print the
 * invoice template at concurrency 8 in alternating blocks (off, on, off, on, …), so that both see the same shared
 * machine. Prints throughput, p50/p95 latency and renderd's own CPU per invoice (from /proc, Chromium left out) for each,
 * the overhead of tracing on each (goal: at most 3 % at concurrency 8) and the spans the receiver got. Never run as a test.
 *
 *   node_modules/.bin/bun run scripts/build.ts      # first, when src/ changed: the bench runs dist/renderd
 *   bun bench/tracing.ts [--docs 400] [--blocks 4] [--binary dist/renderd]
 */
import { parseArgs } from "node:util";
import { INVOICE_TEMPLATE, invoiceData } from "./documents";
import { mergeFigures, type Figures } from "./floor";
import { cpuMs } from "./measure";
import { drive, publishTemplate, startServer, type Server } from "./server";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { docs: { type: "string", default: "400" }, blocks: { type: "string", default: "4" }, binary: { type: "string", default: "dist/renderd" } },
});
const DOCS = Number(values.docs);
const BLOCKS = Number(values.blocks);
const CONCURRENCY = 8;

let spans = 0;
const collector = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const body = (await request.json()) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] };
    for (const r of body.resourceSpans) for (const s of r.scopeSpans) spans += s.spans.length;
    return Response.json({});
  },
});

interface Series {
  name: string;
  server: Server;
  body: string;
  blocks: Figures[];
  cpuMs: number;
}

async function series(name: string, env: Record<string, string>): Promise<Series> {
  const server = await startServer({ binary: values.binary!, env: { RENDER_WORKERS: "2", ...env } });
  const templateId = await publishTemplate(server, "Invoice", INVOICE_TEMPLATE);
  const body = JSON.stringify({ templateId, data: invoiceData() });
  // Warm: the pool's pages, the template's compiled form, the JIT.
  await drive(server, `${name} warm-up`, body, 40, CONCURRENCY);
  return { name, server, body, blocks: [], cpuMs: 0 };
}

const off = await series("tracing off", {});
const on = await series("tracing on", { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}` });
try {
  const perBlock = Math.ceil(DOCS / BLOCKS);
  for (let b = 0; b < BLOCKS; b++) {
    // Alternate which goes first, so neither always follows the other's Chromium cooling down.
    for (const s of b % 2 ? [on, off] : [off, on]) {
      const before = cpuMs(s.server.pid)!;
      s.blocks.push((await drive(s.server, s.name, s.body, perBlock, CONCURRENCY)).figures);
      s.cpuMs += cpuMs(s.server.pid)! - before;
    }
  }
  const rows = [off, on].map((s) => {
    const f = mergeFigures(s.name, s.blocks);
    return { name: s.name, docsPerSecond: f.docsPerSecond, p50: f.p50!, p95: f.p95!, cpuPerDoc: s.cpuMs / f.documents, documents: f.documents };
  });
  console.log(`bench/tracing: ${rows[0]!.documents} invoices each at concurrency ${CONCURRENCY}, ${BLOCKS} alternating blocks, RENDER_WORKERS=2`);
  console.log("series        docs/s   p50 ms   p95 ms   renderd CPU ms/invoice");
  for (const r of rows) console.log(`${r.name.padEnd(12)} ${r.docsPerSecond.toFixed(1).padStart(7)} ${r.p50.toFixed(1).padStart(8)} ${r.p95.toFixed(1).padStart(8)} ${r.cpuPerDoc.toFixed(2).padStart(12)}`);
  const [a, b] = rows as [(typeof rows)[0], (typeof rows)[0]];
  const pct = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)} %`;
  console.log(`overhead of tracing: throughput ${pct(a.docsPerSecond / b.docsPerSecond - 1)}, p50 ${pct(b.p50 / a.p50 - 1)}, renderd CPU per invoice ${pct(b.cpuPerDoc / a.cpuPerDoc - 1)} (goal: at most 3 %)`);
  // Each invoice makes 6 spans (request, render, queue wait, print, finishing, store write); the batches of the last
  // seconds arrive when the server stops.
  console.log(`spans received so far: ${spans} (${(spans / (b.documents + 40)).toFixed(1)} per invoice)`);
} finally {
  await Promise.all([off.server.stop(), on.server.stop()]);
  collector.stop(true);
}
