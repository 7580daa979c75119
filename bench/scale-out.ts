/**
 * bench/scale-out: the invoice of bench/render.ts on the engines of a scale-out (issue 15, docs/scale-out.md) — (a) one
 * `renderd serve` on SQLite, (b) one on PostgreSQL + Redis + an S3 bucket (s3rver), (c) two processes on one such store
 * with the requests sent to each in turn — at concurrency 1 and 8, one configuration after the other. For the shared
 * store it reads what a render costs the engines: PostgreSQL statements, transactions and the time a transaction stays
 * open waiting on its caller (its row locks held meanwhile), Redis calls, and the CPU of each engine's processes; then
 * what an idle process costs them, and the store's round trip at rest. The figures feed docs/scale-out.md's
 * plan for 20 hosts. The engines are test/backends.ts's (a throw-away cluster, redis-server, s3rver in this process);
 * the cluster is restarted once with pg_stat_statements loaded. Never run as a test.
 *
 *   node_modules/.bin/bun run scripts/build.ts     # first, when src/ changed: the bench runs dist/renderd
 *   flock /tmp/renderd-chromium.lock node_modules/.bin/bun bench/scale-out.ts [--c1 60] [--c8 400] [--binary dist/renderd]
 *
 * Each process runs RENDER_WORKERS at its default (the CPU count): on a 2-core machine two processes share the cores
 * their pools need, so (c) measures the shared store's cost, not a second machine's worth of throughput.
 */
import { existsSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { SQL } from "bun";
import { PostgresStore } from "../src/store/postgres-store";
import { sharedStoreEnv, stopBackends } from "../test/backends";
import { INVOICE_TEMPLATE, invoiceData } from "./documents";
import { printFigures, type Figures } from "./floor";
import { drive, publishTemplate, startServer, type Server } from "./server";
import { adminUrl, cpuWhile, enableStatements, minus, pgCounts, postgresProcesses, redisCalls, redisProcesses, type PgCounts } from "./store-stats";

const { values } = parseArgs({
  options: { c1: { type: "string", default: "60" }, c8: { type: "string", default: "400" }, binary: { type: "string", default: "dist/renderd" } },
});
const BINARY = resolve(import.meta.dir, "..", values.binary!);
const C1 = Number(values.c1);
const C8 = Number(values.c8);
const IDLE_MS = 5_000;
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");

interface Config {
  name: string;
  processes: number;
  env?: Record<string, string>;
}

interface Measured {
  config: Config;
  c1: Figures;
  c8: Figures;
  load: string;
  pg?: PgCounts;
  redis?: Record<string, number>;
  idle?: { pg: PgCounts; redis: Record<string, number> };
  cpu: Record<string, number>;
}

/** databaseOf answers the database name in a shared store's DATABASE_URL. */
function databaseOf(env: Record<string, string>): string {
  return new URL(env.DATABASE_URL!).pathname.slice(1);
}

/** roundTrip times the store at rest: one statement, and a write transaction of one statement (BEGIN sent with it,
 * COMMIT). */
async function roundTrip(url: string): Promise<{ statementMs: number; txMs: number; }> {
  const store = await PostgresStore.open(url);
  try {
    for (let i = 0; i < 50; i++) await store.get("SELECT 1 AS ok");
    let t = performance.now();
    for (let i = 0; i < 500; i++) await store.get("SELECT 1 AS ok");
    const statementMs = (performance.now() - t) / 500;
    t = performance.now();
    for (let i = 0; i < 200; i++) await store.tx((tx) => tx.get("SELECT 1 AS ok"));
    return { statementMs, txMs: (performance.now() - t) / 200 };
  } finally {
    await store.close();
  }
}

async function measure(config: Config, admin: SQL | null, dataDirectory: string | null): Promise<Measured> {
  const servers: Server[] = [await startServer({ binary: BINARY, env: config.env })];
  try {
    for (let i = 1; i < config.processes; i++) servers.push(await startServer({ binary: BINARY, env: config.env, key: servers[0]!.key }));
    const templateId = await publishTemplate(servers[0]!, "Bench invoice", INVOICE_TEMPLATE);
    const body = JSON.stringify({ templateId, data: invoiceData() });
    const database = config.env && databaseOf(config.env);
    const read = async () => admin && database ? { pg: await pgCounts(admin, database), redis: redisCalls(config.env!.REDIS_URL!) } : null;
    // What the processes cost the engines with nothing to do (pollers, lease renewals): every host pays it all the time.
    let idle: Measured["idle"];
    if (admin) {
      await Bun.sleep(1500);
      const before = (await read())!;
      await Bun.sleep(IDLE_MS);
      const after = (await read())!;
      idle = { pg: minus(after.pg, before.pg), redis: minus(after.redis, before.redis) };
    }
    await drive(servers, "warm-up", body, 16 * config.processes, 8);
    await Bun.sleep(1500);
    const before = await read();
    const client0 = process.cpuUsage();
    const groups: Record<string, () => number[]> = { renderd: () => servers.map((s) => s.pid) };
    if (dataDirectory) {
      groups.postgres = () => postgresProcesses(dataDirectory);
      groups.redis = redisProcesses;
    }
    const { value, cpu } = await cpuWhile(groups, async () => {
      const c1 = await drive(servers, `${config.name}, concurrency 1`, body, C1, 1);
      const c8 = await drive(servers, `${config.name}, concurrency 8`, body, C8, 8);
      return { c1: c1.figures, c8: c8.figures };
    });
    const client = process.cpuUsage(client0);
    cpu.client = (client.user + client.system) / 1000;
    const measuredLoad = load();
    // Stopped, each backend flushes its counters to pg_stat_database.
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    await Bun.sleep(500);
    const after = await read();
    return {
      config,
      ...value,
      load: measuredLoad,
      cpu,
      idle,
      ...(before && after ? { pg: minus(after.pg, before.pg), redis: minus(after.redis, before.redis) } : {}),
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const sum = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);
const top = (calls: Record<string, number>, per: number) =>
  Object.entries(calls)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([cmd, n]) => `${cmd} ${f2(n / per)}`)
    .join(", ");

async function main() {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} does not exist: build it first (node_modules/.bin/bun run scripts/build.ts)`);
  console.log(`renderd scale-out benchmark: ${BINARY}, Bun ${Bun.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), RENDER_WORKERS default (${cpus().length}) per process, load average ${load()}`);
  const [one, two] = [await sharedStoreEnv(), await sharedStoreEnv()];
  const dataDirectory = await enableStatements(one.DATABASE_URL!);
  const admin = new SQL(adminUrl(one.DATABASE_URL!));
  const results: Measured[] = [];
  try {
    const bridge = await roundTrip(adminUrl(one.DATABASE_URL!));
    results.push(await measure({ name: "(a) 1 process, SQLite", processes: 1 }, null, null));
    results.push(await measure({ name: "(b) 1 process, PostgreSQL + Redis + S3", processes: 1, env: one }, admin, dataDirectory));
    results.push(await measure({ name: "(c) 2 processes, one PostgreSQL + Redis + S3", processes: 2, env: two }, admin, dataDirectory));

    console.log(`\nInvoice (bench/documents.ts), ${C1} at concurrency 1 then ${C8} at concurrency 8 per configuration, after a warm-up; latency is POST /v1/renders?wait=60 to its 200:\n`);
    printFigures(results.flatMap((r) => [r.c1, r.c8]));
    console.log(`\nload average at the end of each: ${results.map((r) => `${r.config.name.slice(0, 3)} ${r.load}`).join("; ")}`);

    console.log(`\nCPU per render (ms; renderd = the serve processes without Chromium; client = this script with s3rver in it):\n`);
    console.log("| configuration | renderd | PostgreSQL | Redis | client + s3rver |");
    console.log("| --- | ---: | ---: | ---: | ---: |");
    for (const r of results) {
      const n = r.c1.documents + r.c8.documents;
      const ms = (k: string) => (r.cpu[k] === undefined ? "–" : f2(r.cpu[k]! / n));
      console.log(`| ${r.config.name} | ${ms("renderd")} | ${ms("postgres")} | ${ms("redis")} | ${ms("client")} |`);
    }

    console.log(`\nWhat a render costs the shared store (the ${C1 + C8} measured renders; per render unless said):\n`);
    console.log("| configuration | statements | … less idle | transactions | … less idle | statements ms | open, waiting on the caller, ms | Redis calls |");
    console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const r of results.filter((r) => r.pg)) {
      const pg = r.pg!;
      const n = r.c1.documents + r.c8.documents;
      // What the processes would have done meanwhile with nothing asked (the idle rate over the series' time), taken off.
      const idleShare = (r.c1.wallMs + r.c8.wallMs) / IDLE_MS;
      const lessIdle = (k: "statements" | "xacts") => (pg[k] - r.idle!.pg[k] * idleShare) / n;
      console.log(
        `| ${r.config.name} | ${f1(pg.statements / n)} | ${f1(lessIdle("statements"))} | ${f2(pg.xacts / n)} | ${f2(lessIdle("xacts"))} | ${f2(pg.execMs / n)} | ${f2(pg.idleInTxMs / n)} | ${f2(sum(r.redis!) / n)} |`,
      );
    }
    for (const r of results.filter((r) => r.redis)) console.log(`- Redis calls per render, ${r.config.name}: ${top(r.redis!, r.c1.documents + r.c8.documents) || "none"}`);

    console.log(`\nIdle (${IDLE_MS / 1000} s, nothing asked), per process per second:`);
    for (const r of results.filter((r) => r.idle)) {
      const per = (r.config.processes * IDLE_MS) / 1000;
      console.log(`- ${r.config.name}: ${f1(r.idle!.pg.statements / per)} statements, ${f2(r.idle!.pg.xacts / per)} transactions, ${f2(sum(r.idle!.redis) / per)} Redis calls`);
    }
    console.log(`\nThe store at rest (PostgresStore in this script, loopback): one statement ${f2(bridge.statementMs)} ms; a transaction of one statement (BEGIN sent with it, COMMIT) ${f2(bridge.txMs)} ms`);
    console.log(`load average at the end ${load()}`);
  } finally {
    await admin.close();
  }
}

try {
  await main();
} finally {
  // The cluster, redis-server and s3rver go with the bench, whether it finished or failed.
  await stopBackends();
}
process.exit(0);
