/** bench/store-stats: what bench/scale-out.ts reads from the engines of a shared store — PostgreSQL's statements
 * (pg_stat_statements) and transactions and time inside them (pg_stat_database), Redis's calls (INFO commandstats), and
 * the CPU time of each engine's processes (from /proc). */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { SQL } from "bun";
import { descendants, listProcesses } from "../src/render/browser";
import { postgresBinDir } from "../test/store/postgres-server";
import { cpuMs } from "./measure";

/** adminUrl answers the URL of the cluster's `postgres` database, where the bench reads statistics without counting in the store's. */
export function adminUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.pathname = "/postgres";
  return url.toString();
}

/** enableStatements restarts the cluster of `databaseUrl` with pg_stat_statements loaded (it must be, at start) and
 * creates the extension in its `postgres` database; answers the cluster's data directory. */
export async function enableStatements(databaseUrl: string): Promise<string> {
  const admin = new SQL(adminUrl(databaseUrl));
  let data: string;
  try {
    await admin.unsafe("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
    data = ((await admin.unsafe("SHOW data_directory")) as { data_directory: string }[])[0]!.data_directory;
  } finally {
    await admin.close();
  }
  // As test/store/postgres-server.ts started it: as the postgres user when root; pg_ctl restart reuses its options.
  const owner = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
  const root = dirname(data);
  const restart = Bun.spawnSync([...owner, join(postgresBinDir(), "pg_ctl"), "-D", data, "-l", join(root, "postgres.log"), "-w", "-t", "30", "-m", "fast", "restart"], { cwd: root, stdout: "pipe", stderr: "pipe" });
  if (restart.exitCode !== 0) throw new Error(`pg_ctl restart failed: ${restart.stderr.toString()}`);
  const again = new SQL(adminUrl(databaseUrl));
  try {
    await again.unsafe("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  } finally {
    await again.close();
  }
  return data;
}

/** PgCounts are one database's cumulative counters. */
export type PgCounts = {
  /** Statements executed (pg_stat_statements, counted as each ends). BEGIN and COMMIT travel as prepared statements
   * (src/store/postgres-store.ts), which it does not count: these are the rest. */
  statements: number;
  /** Time executing them. */
  execMs: number;
  /** pg_stat_database: transactions (explicit and single-statement), time sessions spent idle inside a transaction —
   * what a transaction holding row locks waits on its caller and the network. */
  xacts: number;
  idleInTxMs: number;
};

/** pgCounts reads the counters of `database` through `admin` (a connection to another database of the cluster). */
export async function pgCounts(admin: SQL, database: string): Promise<PgCounts> {
  const rows = (await admin.unsafe(
    "SELECT s.calls::float8 AS calls, s.total_exec_time AS ms FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1",
    [database],
  )) as { calls: number; ms: number }[];
  const counts: PgCounts = { statements: 0, execMs: 0, xacts: 0, idleInTxMs: 0 };
  for (const { calls, ms } of rows) {
    counts.statements += calls;
    counts.execMs += ms;
  }
  // The database's counters are kept per backend and flushed at most once a second: read a fresh snapshot.
  await admin.unsafe("SELECT pg_stat_clear_snapshot()");
  const [db] = (await admin.unsafe(
    "SELECT (xact_commit + xact_rollback)::float8 AS xacts, idle_in_transaction_time AS idle FROM pg_stat_database WHERE datname = $1",
    [database],
  )) as { xacts: number; idle: number }[];
  counts.xacts = db!.xacts;
  counts.idleInTxMs = db!.idle;
  return counts;
}

/** statementCalls reads how often each statement of `database` ran (pg_stat_statements, by normalized text). */
export async function statementCalls(admin: SQL, database: string): Promise<Record<string, number>> {
  const rows = (await admin.unsafe(
    "SELECT s.query, s.calls::float8 AS calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1",
    [database],
  )) as { query: string; calls: number }[];
  const calls: Record<string, number> = {};
  for (const { query, calls: n } of rows) calls[query] = (calls[query] ?? 0) + n;
  return calls;
}

/** minus answers the difference of two readings of the same counters. */
export function minus<T extends Record<string, number>>(after: T, before: T): T {
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)])) as T;
}

/** redisCalls reads INFO commandstats (calls per command, the bench's own INFO left out). */
export function redisCalls(redisUrl: string): Record<string, number> {
  const info = Bun.spawnSync(["redis-cli", "-u", redisUrl, "INFO", "commandstats"], { stdout: "pipe", stderr: "pipe" });
  if (info.exitCode !== 0) throw new Error(`redis-cli INFO failed: ${info.stderr.toString()}`);
  const calls: Record<string, number> = {};
  for (const m of info.stdout.toString().matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (m[1] !== "info") calls[m[1]!] = Number(m[2]);
  return calls;
}

/** postgresProcesses lists the cluster's postmaster (from its postmaster.pid) and its children. */
export function postgresProcesses(dataDirectory: string): number[] {
  const file = join(dataDirectory, "postmaster.pid");
  if (!existsSync(file)) return [];
  const postmaster = Number(readFileSync(file, "utf8").split("\n")[0]);
  return [postmaster, ...descendants(postmaster).map((p) => p.pid)];
}

/** redisProcesses lists the redis-server this bench started (a child of this process, test/http/redis-server.ts). */
export function redisProcesses(): number[] {
  return descendants(process.pid, listProcesses())
    .filter((p) => p.name === "redis-server")
    .map((p) => p.pid);
}

/** cpuWhile reads the CPU time (ms) of each group of processes while `fn` runs, sampling every 100 ms so that a
 * process ending meanwhile keeps what it used; a process first seen after the start counts whole. */
export async function cpuWhile<T>(groups: Record<string, () => number[]>, fn: () => Promise<T>): Promise<{ value: T; cpu: Record<string, number> }> {
  const seen = new Map<string, Map<number, { first: number; last: number }>>(Object.keys(groups).map((g) => [g, new Map()]));
  const sample = (baseline: boolean) => {
    for (const [group, pids] of Object.entries(groups))
      for (const pid of pids()) {
        const ms = cpuMs(pid);
        if (ms === null) continue;
        const known = seen.get(group)!.get(pid);
        if (known) known.last = ms;
        else seen.get(group)!.set(pid, { first: baseline ? ms : 0, last: ms });
      }
  };
  sample(true);
  const timer = setInterval(() => sample(false), 100);
  try {
    const value = await fn();
    sample(false);
    const cpu = Object.fromEntries([...seen].map(([group, pids]) => [group, [...pids.values()].reduce((sum, p) => sum + p.last - p.first, 0)]));
    return { value, cpu };
  } finally {
    clearInterval(timer);
  }
}
