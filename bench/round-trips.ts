/**
 * bench/round-trips: how many PostgreSQL round trips one render waits for one after the other at concurrency 1 — what
 * its latency grows by, per added round trip, when the database is on another host (issue 28's c1 goal allows 15).
 * Two `renderd serve` on two stores of one cluster, with the print replaced by a fixed-cost stub
 * (RENDERD_BENCH_PRINT_MS): one reaches PostgreSQL directly, the other through bench/delay-proxy.c adding --rtt-us
 * (20 ms by default: far above the machine's own milliseconds, so each round trip stands out). Renders go to one, then
 * the other, --renders times; the difference of their medians divided by the added round trip is the count. Then one
 * render of the proxied process is traced (PostgreSQL's log_statement) and printed as the flights its statements
 * reached PostgreSQL in: statements that arrived together travelled together. Never run as a test; light (no
 * Chromium), about a minute.
 *
 *   node_modules/.bin/bun run scripts/build.ts       # first, when src/ changed: the bench runs dist/renderd
 *   node_modules/.bin/bun bench/round-trips.ts [--rtt-us 20000] [--renders 15] [--warm 40] [--binary dist/renderd]
 *
 * --warm renders go to each process first: Bun prepares a statement on each connection the first time it sends it
 * there (two more round trips), and a busy process has prepared them all.
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { SQL } from "bun";
import { sharedStoreEnv, stopBackends } from "../test/backends";
import { INVOICE_TEMPLATE, invoiceData } from "./documents";
import { buildProxy, removeProxy, startProxy } from "./proxy";
import { median } from "./report";
import { publishTemplate, startServer, type Server } from "./server";
import { adminUrl } from "./store-stats";

const { values } = parseArgs({
  options: {
    "rtt-us": { type: "string", default: "20000" },
    renders: { type: "string", default: "15" },
    warm: { type: "string", default: "40" },
    "print-ms": { type: "string", default: "20" },
    binary: { type: "string", default: "dist/renderd" },
  },
});
const BINARY = resolve(import.meta.dir, "..", values.binary!);
const RTT_MS = Number(values["rtt-us"]) / 1000;
const RENDERS = Number(values.renders);
const WARM = Number(values.warm);

/** render posts one render and waits for its end (?wait=60); answers its latency. */
async function render(server: Server, body: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(`${server.base}/v1/renders?wait=60`, { method: "POST", headers: { "x-api-key": server.key, "content-type": "application/json" }, body });
  const answer = (await res.json()) as { status?: string };
  if (answer.status !== "succeeded") throw new Error(`a render answered ${res.status} ${JSON.stringify(answer)}`);
  return performance.now() - t;
}

/** flights reads the statements PostgreSQL logged since `from` for the backends of `database`, grouped by arrival:
 * one that arrived within a quarter round trip of the one before travelled with it. */
function flights(log: string, from: number, pids: Set<string>): string[] {
  const lines = readFileSync(log).subarray(from).toString("utf8").split("\n");
  const out: string[] = [];
  let first = 0;
  let last = -Infinity;
  for (const line of lines) {
    const m = /^\S+ (\d\d):(\d\d):(\d\d\.\d+) \S+ \[(\d+)\] LOG:\s+(?:execute [^:]+|statement): (.*)$/.exec(line);
    if (!m || !pids.has(m[4]!)) continue;
    const ms = ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000;
    if (out.length === 0) first = ms;
    const text = m[5]!.replace(/\s+/g, " ").slice(0, 96);
    if (ms - last > RTT_MS / 4) out.push(`  +${(ms - first).toFixed(0).padStart(4)} ms  [${m[4]}] ${text}`);
    else out.push(`                 [${m[4]}] ${text}`);
    last = ms;
  }
  return out;
}

const proxyBinary = buildProxy();
const direct = await sharedStoreEnv();
const delayed = await sharedStoreEnv();
const admin = new SQL(adminUrl(direct.DATABASE_URL!));
const dataDirectory = ((await admin.unsafe("SHOW data_directory")) as { data_directory: string }[])[0]!.data_directory;
const log = join(dirname(dataDirectory), "postgres.log");
await admin.unsafe("ALTER SYSTEM SET log_statement = 'all'");
await admin.unsafe("ALTER SYSTEM SET log_line_prefix = '%m [%p] '");
await admin.unsafe("SELECT pg_reload_conf()");
const proxy = await startProxy(proxyBinary, delayed.DATABASE_URL!, RTT_MS * 1000);
const stub = { RENDERD_BENCH_PRINT_MS: values["print-ms"]! };
const servers = {
  direct: await startServer({ binary: BINARY, workers: "1", env: { ...direct, ...stub } }),
  delayed: await startServer({ binary: BINARY, workers: "1", env: { ...delayed, ...stub, DATABASE_URL: proxy.url(delayed.DATABASE_URL!) } }),
};
try {
  console.log(`\nOne render at a time, print stub ${values["print-ms"]} ms, PostgreSQL direct vs +${RTT_MS} ms per round trip; ${RENDERS} renders each, after ${WARM} to warm up:\n`);
  console.log("| render | direct p50 ms | delayed p50 ms | round trips in series |");
  console.log("| --- | ---: | ---: | ---: |");
  const traces: Array<{ kind: string; lines: string[] }> = [];
  for (const [kind, body] of [
    ["{html}", async () => JSON.stringify({ html: "<p>round trips</p>" })],
    ["invoice template", async (server: Server) => JSON.stringify({ templateId: await publishTemplate(server, "Round trips", INVOICE_TEMPLATE), data: invoiceData() })],
  ] as const) {
    const bodies = { direct: await body(servers.direct), delayed: await body(servers.delayed) };
    for (let i = 0; i < WARM; i++) await Promise.all([render(servers.direct, bodies.direct), render(servers.delayed, bodies.delayed)]);
    const ms = { direct: [] as number[], delayed: [] as number[] };
    for (let i = 0; i < RENDERS; i++) {
      ms.direct.push(await render(servers.direct, bodies.direct));
      ms.delayed.push(await render(servers.delayed, bodies.delayed));
    }
    const [d, p] = [median(ms.direct), median(ms.delayed)];
    console.log(`| ${kind} | ${d.toFixed(1)} | ${p.toFixed(1)} | ${((p - d) / RTT_MS).toFixed(1)} |`);
    // The traced render: the statements of the delayed process's backends from its request to its answer.
    const database = new URL(delayed.DATABASE_URL!).pathname.slice(1);
    const pids = new Set(((await admin.unsafe("SELECT pid::text AS pid FROM pg_stat_activity WHERE datname = $1", [database])) as { pid: string }[]).map((r) => r.pid));
    await Bun.sleep(1500);
    const from = statSync(log).size;
    await render(servers.delayed, bodies.delayed);
    await Bun.sleep(RTT_MS * 2);
    traces.push({ kind, lines: flights(log, from, pids) });
  }
  for (const { kind, lines } of traces)
    console.log(`\nOne ${kind} render's statements through the proxy, by arrival (a new time is a new flight; pollers of deliveries and leases run beside it):\n\n${lines.join("\n")}`);
} finally {
  await admin.unsafe("ALTER SYSTEM RESET log_statement").catch(() => {});
  await admin.unsafe("SELECT pg_reload_conf()").catch(() => {});
  await Promise.all([servers.direct.stop(), servers.delayed.stop()]);
  proxy.stop();
  removeProxy(proxyBinary);
  await admin.close();
  await stopBackends();
}
