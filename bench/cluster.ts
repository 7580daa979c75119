/**
 * bench/cluster: K `renderd serve` processes on one shared store (PostgreSQL + Redis + an S3 bucket), each reaching
 * PostgreSQL through its own delay proxy (bench/delay-proxy.c: a database on another host, by added round trip), with
 * the print replaced by a fixed-cost stub (RENDERD_BENCH_PRINT_MS, src/render/stub-pool.ts): the real API, queue and
 * worker, measured without Chromium on the two cores. Per K and added round trip it prints renders/s, what a render
 * costs PostgreSQL (statements and transactions, from pg_stat_statements and pg_stat_database), how often a backend
 * waited for a lock (pg_stat_activity sampled every 10 ms), /health latency on every process during the load (the
 * event loop's lag, as a client sees it), and how busy the machine's CPUs were and who kept them busy (/proc: renderd,
 * PostgreSQL, the proxies, Redis, this client with s3rver in it, everything else). docs/scale-out.md "Measured" has the
 * figures. Never run as a test.
 *
 *   node_modules/.bin/bun run scripts/build.ts       # first, when src/ changed: the bench runs dist/renderd
 *   flock /tmp/renderd-heavy.lock node_modules/.bin/bun bench/cluster.ts [--k 1,2,4] [--rtt-us 500] [--renders 600]
 *     [--concurrency 16] [--print-ms 20] [--workers 4] [--workspaces 16] [--freeze-s 0] [--binary dist/renderd]
 *
 * A K listed again runs again, in the order given: --k 1,2,4,4,2,1 measures alternating rounds on a shared machine,
 * and the summary divides each round's renders/s by the first K's of the same round.
 *
 * The renders come from --workspaces workspaces in turn, as a shared service's do: each rule that locks a workspace's
 * row (its allowances) takes turns within one workspace, never across them (docs/scale-out.md "Locks"); with one
 * workspace the cluster accepts one request of it at a time.
 *
 * --freeze-s N runs one more configuration: three processes, and once the load runs, the first one's link to
 * PostgreSQL is frozen for N seconds (SIGUSR1 to its proxy: nothing forwarded, nothing reset). It prints the others'
 * renders/s before and during the freeze, their /health latency during it, and every render's final status.
 */
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { SQL } from "bun";
import { sharedStoreEnv, stopBackends } from "../test/backends";
import { machineBusyMs, machineStealMs } from "./measure";
import { buildProxy, removeProxy, startProxy, type Proxy } from "./proxy";
import { adminUrl, cpuWhile, enableStatements, minus, pgCounts, postgresProcesses, redisProcesses, statementCalls } from "./store-stats";
import { cli, startServer, type Server } from "./server";

const { values } = parseArgs({
  options: {
    k: { type: "string", default: "1,2,4" },
    "rtt-us": { type: "string", default: "500" },
    renders: { type: "string", default: "600" },
    concurrency: { type: "string", default: "16" },
    "print-ms": { type: "string", default: "20" },
    workers: { type: "string", default: "4" },
    workspaces: { type: "string", default: "16" },
    "freeze-s": { type: "string", default: "0" },
    binary: { type: "string", default: "dist/renderd" },
  },
});
// How many of the most frequent statements each K prints, per render.
const TOP_STATEMENTS = 14;
const BINARY = resolve(import.meta.dir, "..", values.binary!);
const KS = values.k!.split(",").map(Number);
const RTTS = values["rtt-us"]!.split(",").map(Number);
const RENDERS = Number(values.renders);
const CONCURRENCY = Number(values.concurrency);
const PRINT_MS = values["print-ms"]!;
const WORKERS = values.workers!;
const FREEZE_S = Number(values["freeze-s"]);
const WORKSPACES = Number(values.workspaces);
const BODY = JSON.stringify({ html: "<p>cluster</p>" });

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0);

/** HealthWatch asks every process's /health every 50 ms and keeps each answer's latency. */
function watchHealth(servers: Server[]): { stop(): number[] } {
  const ms: number[] = [];
  let on = true;
  const loops = servers.map(async (s) => {
    while (on) {
      const t = performance.now();
      try {
        await fetch(`${s.base}/health`, { signal: AbortSignal.timeout(30_000) });
      } catch {
        // a timeout counts as its time
      }
      ms.push(performance.now() - t);
      await Bun.sleep(50);
    }
  });
  return {
    stop() {
      on = false;
      void Promise.all(loops);
      // A copy: the loops still asking push their last answers after this.
      return [...ms].sort((a, b) => a - b);
    },
  };
}

/** LockWatch samples pg_stat_activity every 10 ms: how often some backend of the store waited for a lock. */
function watchLocks(admin: SQL, database: string): { stop(): Promise<{ samples: number; waiting: number; meanWaiting: number }> } {
  let on = true;
  let samples = 0;
  let waiting = 0;
  let total = 0;
  const loop = (async () => {
    while (on) {
      const [row] = (await admin.unsafe("SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'", [database])) as { n: number }[];
      samples++;
      if (row!.n > 0) waiting++;
      total += row!.n;
      await Bun.sleep(10);
    }
  })();
  return {
    async stop() {
      on = false;
      await loop;
      return { samples, waiting, meanWaiting: total / Math.max(1, samples) };
    },
  };
}

let keys: string[] = [];
let sent = 0;

/** workspaceKeys makes `n` more workspaces that never throttle, each with a key, through the CLI on the store. */
function workspaceKeys(env: Record<string, string>, n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    cli(BINARY, env, "workspaces", "create", `Cluster ${i}`, "--slug", `cluster-${i}`);
    cli(BINARY, env, "allowances", "set", "--workspace", `cluster-${i}`, "--max-active-renders", "100000", "--renders-per-minute", "10000000");
    return cli<{ secret: string }>(BINARY, env, "keys", "create", "--workspace", `cluster-${i}`, "--name", "cluster", "--scope", "render:create,render:read").secret;
  });
}

/** post sends one render of the next workspace and waits for its end (?wait=60); answers its status and latency. */
async function post(server: Server): Promise<{ status: string; ms: number }> {
  const t = performance.now();
  const key = keys.length ? keys[sent++ % keys.length]! : server.key;
  const res = await fetch(`${server.base}/v1/renders?wait=60`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: BODY });
  const body = (await res.json()) as { status?: string; error?: { code: string } };
  return { status: body.status ?? body.error?.code ?? String(res.status), ms: performance.now() - t };
}

/** cluster starts K processes through K proxies on a fresh store. */
async function cluster(proxy: string, k: number, rttUs: number) {
  const env = await sharedStoreEnv();
  const proxies: Proxy[] = await Promise.all(Array.from({ length: k }, () => startProxy(proxy, env.DATABASE_URL!, rttUs)));
  const through = (p: Proxy) => p.url(env.DATABASE_URL!);
  const common = { ...env, RENDER_WORKERS: WORKERS, RENDERD_BENCH_PRINT_MS: PRINT_MS, LOG_LEVEL: "warn" };
  const servers: Server[] = [await startServer({ binary: BINARY, env: { ...common, DATABASE_URL: through(proxies[0]!) } })];
  for (let i = 1; i < k; i++) servers.push(await startServer({ binary: BINARY, env: { ...common, DATABASE_URL: through(proxies[i]!) }, key: servers[0]!.key }));
  keys = [servers[0]!.key, ...workspaceKeys(env, WORKSPACES - 1)];
  return {
    env,
    proxies,
    servers,
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
      proxies.forEach((p) => p.stop());
    },
  };
}

/** busyShare answers the machine's CPU busy share (all cores, from /proc/stat) and each group's share of it while `fn` runs. */
async function busyShare<T>(groups: Record<string, () => number[]>, fn: () => Promise<T>): Promise<{ value: T; busy: number; line: string }> {
  const busy0 = machineBusyMs();
  const steal0 = machineStealMs();
  const client0 = process.cpuUsage();
  const wall = performance.now();
  const { value, cpu } = await cpuWhile(groups, fn);
  const capacity = (performance.now() - wall) * cpus().length;
  const client = process.cpuUsage(client0);
  const shares = { ...cpu, "client + s3rver": (client.user + client.system) / 1000 };
  const ours = Object.values(shares).reduce((a, b) => a + b, 0);
  const machine = machineBusyMs() - busy0;
  const steal = machineStealMs() - steal0;
  const pct = (ms: number) => `${((100 * ms) / capacity).toFixed(0)}%`;
  const parts = Object.entries(shares).map(([group, ms]) => `${group} ${pct(ms)}`);
  return { value, busy: machine / capacity, line: `  CPU: the machine ${pct(machine)} busy (${cpus().length} cores, steal ${pct(steal)} of it); ${parts.join(", ")}, others ${pct(Math.max(0, machine - ours))}` };
}

/** Measured is one K's run: what it prints, its renders/s and the machine's busy share over its measuring window. */
interface Measured {
  k: number;
  rttUs: number;
  rate: number;
  busy: number;
  text: string;
}

async function measure(proxy: string, k: number, rttUs: number): Promise<Measured> {
  const c = await cluster(proxy, k, rttUs);
  const database = new URL(c.env.DATABASE_URL!).pathname.slice(1);
  const admin = new SQL(adminUrl(c.env.DATABASE_URL!));
  try {
    // Warm-up: every process prints, every statement is prepared.
    await Promise.all(c.servers.map((s) => Promise.all(Array.from({ length: 8 }, () => post(s)))));
    const before = await pgCounts(admin, database);
    const callsBefore = await statementCalls(admin, database);
    const locks = watchLocks(admin, database);
    const health = watchHealth(c.servers);
    let left = RENDERS;
    let next = 0;
    const results: Array<{ status: string; ms: number }> = [];
    const wall = performance.now();
    const groups = {
      renderd: () => c.servers.map((s) => s.pid),
      PostgreSQL: () => postgresProcesses(dataDirectory),
      proxies: () => c.proxies.map((p) => p.pid),
      Redis: redisProcesses,
    };
    const { busy, line: cpuLine } = await busyShare(groups, () =>
      Promise.all(
        Array.from({ length: CONCURRENCY * k }, async () => {
          while (left-- > 0) results.push(await post(c.servers[next++ % k]!));
        }),
      ),
    );
    const seconds = (performance.now() - wall) / 1000;
    const healthMs = health.stop();
    const lock = await locks.stop();
    const used = minus(await pgCounts(admin, database), before);
    // What a render costs the store, statement by statement: the most frequent, per render.
    const calls = minus(await statementCalls(admin, database), callsBefore);
    const top = Object.entries(calls)
      .filter(([, n]) => n > 0)
      .sort(([, a], [, b]) => b - a)
      .slice(0, TOP_STATEMENTS)
      .map(([query, n]) => `    ${(n / RENDERS).toFixed(2)}  ${query.replace(/\s+/g, " ").slice(0, 110)}`);
    const ok = results.filter((r) => r.status === "succeeded").length;
    const latency = results.map((r) => r.ms).sort((a, b) => a - b);
    const text = [
      `K=${k} +${rttUs / 1000} ms: ${(RENDERS / seconds).toFixed(1)} renders/s (${ok}/${RENDERS} succeeded${ok < RENDERS ? `; the others: ${results.filter((r) => r.status !== "succeeded").map((r) => `${r.status} after ${r.ms.toFixed(0)} ms`).join(", ")}` : ""}), p50 ${percentile(latency, 50).toFixed(0)} ms, p99 ${percentile(latency, 99).toFixed(0)} ms, max ${(latency.at(-1) ?? 0).toFixed(0)} ms`,
      // BEGIN and COMMIT go as prepared statements, which pg_stat_statements does not count: statements are the rest.
      `  per render: ${(used.statements / RENDERS).toFixed(1)} statements besides BEGIN and COMMIT, ${(used.xacts / RENDERS).toFixed(1)} transactions (explicit and single-statement); the most frequent statements, per render:`,
      ...top,
      `  locks: a backend waited in ${((100 * lock.waiting) / Math.max(1, lock.samples)).toFixed(1)}% of ${lock.samples} samples (mean ${lock.meanWaiting.toFixed(2)} waiting)`,
      `  /health during the load: p50 ${percentile(healthMs, 50).toFixed(1)} ms, p99 ${percentile(healthMs, 99).toFixed(1)} ms, max ${(healthMs.at(-1) ?? 0).toFixed(1)} ms (${healthMs.length} asked)`,
      cpuLine,
    ].join("\n");
    return { k, rttUs, rate: RENDERS / seconds, busy, text };
  } finally {
    await admin.close();
    await c.stop();
  }
}

/** freeze runs three processes, freezes the first one's link for FREEZE_S seconds mid-load, and reports the others. */
async function freeze(proxy: string, rttUs: number): Promise<string> {
  const c = await cluster(proxy, 3, rttUs);
  try {
    await Promise.all(c.servers.map((s) => Promise.all(Array.from({ length: 8 }, () => post(s)))));
    const others = c.servers.slice(1);
    const ended: Array<{ at: number; status: string }> = [];
    let on = true;
    const load = c.servers.map((s) =>
      Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (on) {
            const r = await post(s);
            if (s !== c.servers[0]) ended.push({ at: performance.now(), status: r.status });
          }
        }),
      ),
    );
    await Bun.sleep(10_000);
    const frozenAt = performance.now();
    const health = watchHealth(others);
    c.proxies[0]!.freeze();
    await Bun.sleep(FREEZE_S * 1000);
    c.proxies[0]!.thaw();
    const thawedAt = performance.now();
    const healthMs = health.stop();
    on = false;
    await Promise.all(load);
    const rate = (from: number, to: number) => ended.filter((e) => e.at >= from && e.at < to && e.status === "succeeded").length / ((to - from) / 1000);
    const failed = await new SQL(c.env.DATABASE_URL!).unsafe("SELECT status, COUNT(*)::int AS n FROM renders GROUP BY status ORDER BY status");
    return [
      `freeze: one of 3 processes' link frozen ${FREEZE_S} s at +${rttUs / 1000} ms`,
      `  the other two: ${rate(frozenAt - 10_000, frozenAt).toFixed(1)} renders/s before, ${rate(frozenAt, thawedAt).toFixed(1)} during`,
      `  their /health during it: p50 ${percentile(healthMs, 50).toFixed(1)} ms, p99 ${percentile(healthMs, 99).toFixed(1)} ms, max ${(healthMs.at(-1) ?? 0).toFixed(1)} ms`,
      `  every render's final status: ${JSON.stringify(failed)}`,
    ].join("\n");
  } finally {
    await c.stop();
  }
}

const proxy = buildProxy();
const env = await sharedStoreEnv();
const dataDirectory = await enableStatements(env.DATABASE_URL!);
console.log(
  `renderd cluster benchmark: ${BINARY}, Bun ${Bun.version}, ${cpus().length} CPUs (${cpus()[0]?.model}), load ${loadavg().map((x) => x.toFixed(2)).join(" ")}; ` +
    `print stub ${PRINT_MS} ms, RENDER_WORKERS=${WORKERS}, ${RENDERS} renders from ${WORKSPACES} workspaces at concurrency ${CONCURRENCY} per process`,
);
/** summary: per added round trip, each K's renders/s and the machine's busy share in every round, and K ÷ the first K
 * round by round (a K listed again, as in --k 1,2,4,4,2,1, starts another round). */
function summary(runs: Measured[]): string[] {
  const lines: string[] = [];
  const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
  for (const rtt of RTTS) {
    const at = runs.filter((r) => r.rttUs === rtt);
    const ks = [...new Set(at.map((r) => r.k))];
    const first = at.filter((r) => r.k === ks[0]);
    lines.push(`summary at +${rtt / 1000} ms (K: renders/s with the machine's CPU busy, each round):`);
    for (const k of ks) {
      const each = at.filter((r) => r.k === k);
      const ratios = each.map((r, i) => (first[i] ? (r.rate / first[i]!.rate).toFixed(2) : "–"));
      lines.push(`  K=${k}: ${each.map((r) => `${r.rate.toFixed(1)} (${pct(r.busy)})`).join(", ")}; ÷ K=${ks[0]}: ${ratios.join(", ")}`);
    }
  }
  return lines;
}

try {
  const runs: Measured[] = [];
  for (const rtt of RTTS)
    for (const k of KS) {
      const run = await measure(proxy, k, rtt);
      console.log(run.text);
      runs.push(run);
    }
  console.log(summary(runs).join("\n"));
  if (FREEZE_S > 0) console.log(await freeze(proxy, RTTS[0]!));
} finally {
  await stopBackends();
  removeProxy(proxy);
}
process.exit(0);
