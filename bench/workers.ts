/**
 * bench/workers: RENDER_WORKERS against throughput and memory on this machine (issue 17) — three servers started side
 * by side with 2, 3 and 4 pages, driven in alternating blocks of invoices at concurrency 8 (so that all three see the
 * same shared machine), then the Pss of each pool with its server idle. docs/performance.md "RENDER_WORKERS".
 *
 *   node_modules/.bin/bun run scripts/build.ts
 *   flock /tmp/renderd-chromium.lock node_modules/.bin/bun bench/workers.ts [--block 100] [--rounds 4] [--workers 2,3,4]
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { INVOICE_TEMPLATE, invoiceData } from "./documents";
import { addCpu, measureCpu, memory, serverProcesses, type CpuReport } from "./measure";
import { mib } from "./report";
import { drive, publishTemplate, startServer, type Server } from "./server";

const { values } = parseArgs({
  options: { block: { type: "string", default: "100" }, rounds: { type: "string", default: "4" }, workers: { type: "string", default: "2,3,4" }, binary: { type: "string", default: "dist/renderd" } },
});
const BLOCK = Number(values.block);
const ROUNDS = Number(values.rounds);
const SIZES = values.workers!.split(",").map(Number);

interface Series {
  workers: number;
  server: Server;
  body: string;
  docs: number;
  wallMs: number;
  perBlock: number[];
  cpu?: CpuReport;
}

const binary = resolve(import.meta.dir, "..", values.binary!);
const series: Series[] = [];
try {
  for (const workers of SIZES) {
    const server = await startServer({ binary, workers: String(workers) });
    const id = await publishTemplate(server, "Bench invoice", INVOICE_TEMPLATE);
    series.push({ workers, server, body: JSON.stringify({ templateId: id, data: invoiceData() }), docs: 0, wallMs: 0, perBlock: [] });
  }
  // Warm every pool (each page past its first renders) before the timed blocks.
  for (const s of series) await drive(s.server, "warm-up", s.body, 40, 8);
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of series) {
      const r = await measureCpu(() => serverProcesses(s.server), s.server.pid, () => drive(s.server, "c8", s.body, BLOCK, 8));
      s.docs += r.value.figures.documents;
      s.wallMs += r.value.figures.wallMs;
      s.perBlock.push(r.value.figures.docsPerSecond);
      s.cpu = s.cpu ? addCpu(s.cpu, r.cpu) : r.cpu;
    }
  }
  await Bun.sleep(1500);
  console.log(`RENDER_WORKERS on ${navigator.hardwareConcurrency} CPUs: ${ROUNDS} alternating blocks of ${BLOCK} invoices at concurrency 8 per server\n`);
  console.log("| RENDER_WORKERS | docs/s | per block | CPU ms/doc, all ours | cores others | Chromium processes | Pss | VmRSS summed |");
  console.log("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |");
  for (const s of series) {
    const m = memory(s.server);
    const cpu = s.cpu!;
    const ours = cpu.renderd + cpu.browser + cpu.renderers + cpu["gpu, utility"] + cpu.client;
    const cells = [s.workers, ((s.docs * 1000) / s.wallMs).toFixed(1), s.perBlock.map((x) => x.toFixed(1)).join(", "), (ours / s.docs).toFixed(1), (cpu.others / cpu.wallMs).toFixed(2), m.processes, mib(m.pssBytes), mib(m.rssBytes)];
    console.log(`| ${cells.join(" | ")} |`);
  }
} finally {
  await Promise.all(series.map((s) => s.server.stop()));
}
