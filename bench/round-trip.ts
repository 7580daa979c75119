/**
 * bench/round-trip: what a database on another host costs one process printing the real invoice (Chromium). Three
 * `renderd serve` run side by side — on SQLite, on PostgreSQL + Redis + S3 reached directly (loopback), and on such a
 * store whose PostgreSQL is reached through bench/delay-proxy.c adding --rtt-us to every round trip — and are measured
 * in alternating blocks (each configuration's concurrency 1, then its concurrency 8, then the next configuration's;
 * --rounds times), so that all three see the same shared machine. Prints each series, the split per document (as
 * bench/render.ts does: accept, queue, print, commit, answer) and issue 28's first goal, each ratio taken block by
 * block and judged on its median: the +RTT process's docs/s at concurrency 8 ≥ 0.9× loopback's and ≥ 0.85× SQLite's,
 * and its p50 at concurrency 1 ≤ loopback's + 15 × the added round trip. The round trip the proxy really adds is measured
 * during each of the +RTT process's concurrency-1 blocks (`SELECT 1` through the proxy and directly, one after the
 * other): on a loaded guest the proxy's timers wake late and every round trip costs more than --rtt-us, renderd's as
 * much as the probe's. Never run as a test.
 *
 *   node_modules/.bin/bun run scripts/build.ts       # first, when src/ changed: the bench runs dist/renderd
 *   flock /tmp/renderd-heavy.lock node_modules/.bin/bun bench/round-trip.ts [--rtt-us 500] [--rounds 4] [--c1 20]
 *     [--c8 80] [--binary dist/renderd]
 *
 * The idle two still poll their stores while the third is measured (a few statements a second each).
 */
import { existsSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { SQL } from "bun";
import { sharedStoreEnv, stopBackends } from "../test/backends";
import { INVOICE_TEMPLATE, invoiceData } from "./documents";
import { mergeFigures, printFigures, type Figures } from "./floor";
import { addCpu, measureCpu, serverProcesses, type CpuReport } from "./measure";
import { buildProxy, removeProxy, startProxy, type Proxy } from "./proxy";
import { median, SPLIT_HEADER, splitRow, verdict } from "./report";
import { drive, publishTemplate, startServer, type Run, type Server } from "./server";
import { blockRatio } from "./targets";

const { values } = parseArgs({
  options: {
    "rtt-us": { type: "string", default: "500" },
    rounds: { type: "string", default: "4" },
    c1: { type: "string", default: "20" },
    c8: { type: "string", default: "80" },
    binary: { type: "string", default: "dist/renderd" },
  },
});
const BINARY = resolve(import.meta.dir, "..", values.binary!);
const RTT_US = Number(values["rtt-us"]);
const ROUNDS = Number(values.rounds);
const C1 = Number(values.c1);
const C8 = Number(values.c8);
const GOAL = { overLoopback: 0.9, overSqlite: 0.85, c1RoundTrips: 15 };
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");

/** Series is one configuration's blocks at one concurrency: their figures, timings and CPU. */
class Series {
  readonly blocks: Figures[] = [];
  private readonly timings: Run["timings"] = [];
  cpu?: CpuReport;

  add(run: Run, cpu: CpuReport): void {
    this.blocks.push(run.figures);
    this.timings.push(...run.timings);
    this.cpu = this.cpu ? addCpu(this.cpu, cpu) : cpu;
  }

  merged(name: string): Run {
    return { timings: this.timings, figures: mergeFigures(name, this.blocks) };
  }
}

interface Configuration {
  name: string;
  server: Server;
  body: string;
  c1: Series;
  c8: Series;
}

async function configuration(name: string, env?: Record<string, string>): Promise<Configuration> {
  const server = await startServer({ binary: BINARY, env });
  const templateId = await publishTemplate(server, "Bench invoice", INVOICE_TEMPLATE);
  return { name, server, body: JSON.stringify({ templateId, data: invoiceData() }), c1: new Series(), c8: new Series() };
}

async function block(c: Configuration, series: Series, n: number, concurrency: number): Promise<void> {
  const { value, cpu } = await measureCpu(() => serverProcesses(c.server), c.server.pid, () => drive(c.server, c.name, c.body, n, concurrency));
  series.add(value, cpu);
}

/** addedRoundTrip runs `during` and meanwhile measures what the proxy adds to a round trip: `SELECT 1` through it and
 * directly, one after the other, every 10 ms; the median difference in ms. */
async function addedRoundTrip(direct: string, proxied: string, during: () => Promise<void>): Promise<number> {
  const [near, far] = [new SQL(direct, { max: 1 }), new SQL(proxied, { max: 1 })];
  await Promise.all([near`SELECT 1`, far`SELECT 1`]);
  const differences: number[] = [];
  let done = false;
  const probe = (async () => {
    while (!done) {
      const t0 = performance.now();
      await far`SELECT 1`;
      const t1 = performance.now();
      await near`SELECT 1`;
      differences.push(t1 - t0 - (performance.now() - t1));
      await Bun.sleep(10);
    }
  })();
  try {
    await during();
  } finally {
    done = true;
    await probe;
    await Promise.all([near.close(), far.close()]);
  }
  return median(differences);
}

async function main(): Promise<void> {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} does not exist: build it first (node_modules/.bin/bun run scripts/build.ts)`);
  const rtt = `+${RTT_US / 1000} ms`;
  console.log(`renderd round-trip benchmark: ${BINARY}, Bun ${Bun.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), load average ${load()}`);
  const proxyBinary = buildProxy();
  const configurations: Configuration[] = [];
  let proxy: Proxy | undefined;
  try {
    const [near, far] = [await sharedStoreEnv(), await sharedStoreEnv()];
    proxy = await startProxy(proxyBinary, far.DATABASE_URL!, RTT_US);
    configurations.push(await configuration("SQLite"));
    configurations.push(await configuration("PostgreSQL, loopback", near));
    configurations.push(await configuration(`PostgreSQL, ${rtt}`, { ...far, DATABASE_URL: proxy.url(far.DATABASE_URL!) }));
    const [sqlite, loopback, remote] = configurations as [Configuration, Configuration, Configuration];
    for (const c of configurations) await drive(c.server, "warm-up", c.body, 16, 8);

    const loads: string[] = [];
    const measuredRtt: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of configurations) {
        if (c === remote) measuredRtt.push(await addedRoundTrip(far.DATABASE_URL!, proxy.url(far.DATABASE_URL!), () => block(c, c.c1, C1, 1)));
        else await block(c, c.c1, C1, 1);
        await block(c, c.c8, C8, 8);
      }
      loads.push(load());
    }

    console.log(`\nInvoice (bench/documents.ts), ${ROUNDS} rounds of ${C1} at concurrency 1 and ${C8} at concurrency 8 per configuration; POST /v1/renders?wait=60 to its 200:\n`);
    printFigures(configurations.flatMap((c) => [c.c1.merged(`${c.name}, concurrency 1`).figures, c.c8.merged(`${c.name}, concurrency 8`).figures]));
    console.log(`\nload average after each round: ${loads.join("; ")}`);

    console.log(`\nThe split per document (medians, ms) and CPU per document (ms):\n`);
    console.log(SPLIT_HEADER.join("\n"));
    for (const c of configurations)
      for (const [label, series] of [["concurrency 1", c.c1], ["concurrency 8", c.c8]] as const)
        console.log(splitRow(`${c.name}, ${label}`, series.merged(label), series.cpu!, c.server.poolMs));

    const c8 = (f: Figures) => f.docsPerSecond;
    const overLoopback = blockRatio(remote.c8.blocks, loopback.c8.blocks, c8);
    const overSqlite = blockRatio(remote.c8.blocks, sqlite.c8.blocks, c8);
    const added = remote.c1.blocks.map((f, i) => f.p50 - loopback.c1.blocks[i]!.p50);
    const rttMs = median(measuredRtt);
    const bound = GOAL.c1RoundTrips * rttMs;
    const each = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(", ");
    console.log(`\nIssue 28's first goal at ${rtt} (median of the rounds' ratios, each round's in brackets):`);
    console.log(`- concurrency 8 docs/s ÷ loopback's: ${overLoopback.median.toFixed(2)}× [${each(overLoopback.each)}] — goal ≥ ${GOAL.overLoopback}×: ${verdict(overLoopback.median >= GOAL.overLoopback)}`);
    console.log(`- concurrency 8 docs/s ÷ SQLite's: ${overSqlite.median.toFixed(2)}× [${each(overSqlite.each)}] — goal ≥ ${GOAL.overSqlite}×: ${verdict(overSqlite.median >= GOAL.overSqlite)}`);
    console.log(`- the round trip the proxy added during the concurrency-1 blocks: ${rttMs.toFixed(3)} ms [${each(measuredRtt)}] (asked: ${RTT_US / 1000} ms)`);
    console.log(
      `- concurrency 1 p50 − loopback's: ${median(added).toFixed(1)} ms [${each(added)}] = ${(median(added) / rttMs).toFixed(1)} added round trips — goal ≤ ${bound.toFixed(1)} ms (15 × ${rttMs.toFixed(3)} ms): ${verdict(median(added) <= bound)}`,
    );
  } finally {
    await Promise.all(configurations.map((c) => c.server.stop()));
    proxy?.stop();
    removeProxy(proxyBinary);
  }
}

try {
  await main();
} finally {
  await stopBackends();
}
process.exit(0);
