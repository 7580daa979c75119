/**
 * bench/side-by-side: two renderd servers — two builds, or one build under two environments — driven in alternating
 * blocks of invoices at concurrency 8 or `--concurrency` (the order swapped every round, so that neither always runs
 * after the other), each block's CPU read from /proc by kind of process and, for renderd itself, by thread (the event
 * loop, JavaScript compilers, the allocator's scavenger, the file system's thread pool), and each block's p50. What the
 * fourth and fifth passes of issue 17 measured each change with (docs/performance.md "Fourth pass", "Fifth pass").
 *
 *   node_modules/.bin/bun run scripts/build.ts
 *   flock /tmp/renderd-chromium.lock node_modules/.bin/bun bench/side-by-side.ts [--a dist/renderd] [--b dist/renderd]
 *     [--a-env K=V,K=V] [--b-env K=V,K=V] [--rounds 10] [--block 100] [--concurrency 8]
 */
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { INVOICE_TEMPLATE, invoiceData } from "./documents";
import { addCpu, CPU_CLASSES, cpuMs, measureCpu, serverProcesses, type CpuReport } from "./measure";
import { median } from "./report";
import { drive, publishTemplate, startServer, type Server } from "./server";

const { values } = parseArgs({
  options: {
    a: { type: "string", default: "dist/renderd" },
    b: { type: "string", default: "dist/renderd" },
    "a-env": { type: "string", default: "" },
    "b-env": { type: "string", default: "" },
    rounds: { type: "string", default: "10" },
    block: { type: "string", default: "100" },
    concurrency: { type: "string", default: "8" },
  },
});
const ROUNDS = Number(values.rounds);
const BLOCK = Number(values.block);
const CONCURRENCY = Number(values.concurrency);

/** threadsMs answers the CPU time of each of a process's threads by name (numbered pool threads summed), in ms. */
function threadsMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim().replace(/ \d+$/, "");
      const ms = cpuMs(pid, tid);
      if (ms !== null) byName.set(name, (byName.get(name) ?? 0) + ms);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return byName;
}

interface Side {
  label: string;
  server: Server;
  body: string;
  docs: number;
  perBlock: number[];
  /** Each block's median latency, ms: at concurrency 1 the figure issue 17 judges. */
  p50s: number[];
  cpu?: CpuReport;
  threads: Map<string, number>;
}

const environment = (pairs: string) => Object.fromEntries(pairs.split(",").filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
const sides: Side[] = [];
try {
  for (const [binary, env] of [[values.a!, values["a-env"]!], [values.b!, values["b-env"]!]] as const) {
    const server = await startServer({ binary: resolve(import.meta.dir, "..", binary), env: environment(env) });
    const id = await publishTemplate(server, "Bench invoice", INVOICE_TEMPLATE);
    sides.push({ label: `${binary}${env ? ` ${env}` : ""}`, server, body: JSON.stringify({ templateId: id, data: invoiceData() }), docs: 0, perBlock: [], p50s: [], threads: new Map() });
  }
  for (const side of sides) await drive(side.server, "warm-up", side.body, 150, 8);
  const before = sides.map((side) => threadsMs(side.server.pid));
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const r = await measureCpu(() => serverProcesses(side.server), side.server.pid, () => drive(side.server, `c${CONCURRENCY}`, side.body, BLOCK, CONCURRENCY));
      side.docs += r.value.figures.documents;
      side.perBlock.push(r.value.figures.docsPerSecond);
      side.p50s.push(r.value.figures.p50);
      side.cpu = side.cpu ? addCpu(side.cpu, r.cpu) : r.cpu;
    }
  }
  sides.forEach((side, i) => {
    for (const [name, ms] of threadsMs(side.server.pid)) side.threads.set(name, ms - (before[i]!.get(name) ?? 0));
  });
  console.log(`${ROUNDS} alternating rounds of ${BLOCK} invoices at concurrency ${CONCURRENCY} per server, after 150 warm-up invoices each\n`);
  console.log(`| server | docs/s | per block | p50 ms (median of the blocks') | ${CPU_CLASSES.join(" | ")} (ms of CPU per invoice) | renderd by thread |`);
  console.log(`| --- | ---: | --- | ---: | ${CPU_CLASSES.map(() => "---:").join(" | ")} | --- |`);
  for (const side of sides) {
    const cpu = side.cpu!;
    const threads = [...side.threads].filter(([, ms]) => ms > 0).map(([name, ms]) => `${name} ${(ms / side.docs).toFixed(2)}`).join(", ");
    const docsPerSecond = (side.docs * 1000) / cpu.wallMs;
    console.log(`| ${side.label} | ${docsPerSecond.toFixed(1)} | ${side.perBlock.map((x) => x.toFixed(1)).join(", ")} | ${median(side.p50s).toFixed(1)} | ${CPU_CLASSES.map((c) => (cpu[c] / side.docs).toFixed(2)).join(" | ")} | ${threads} |`);
  }
} finally {
  for (const side of sides) await side.server.stop();
}
