/** bench/report: the tables and figures bench/render.ts prints (docs/performance.md records them). */
import { CPU_CLASSES, type CpuReport } from "./measure";
import type { Run } from "./server";

const MiB = 2 ** 20;

/** mib shows bytes in MiB. */
export const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;

/** verdict shows whether a target was met. */
export const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");

/** median answers the middle value (the lower one of an even count). */
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};

/** SPLIT_HEADER heads the per-document split that splitRow writes. */
export const SPLIT_HEADER = [
  "| series | POST→200 | accept: HTTP in, check, compile, insert | queue | print: pool.render() | commit: finish, PDF stored, final state written | answer: final COMMIT, wake, HTTP out | renderd CPU | Chromium CPU |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
];

/** splitRow is one line of the per-document split: where a series' renders spent their time (medians, ms; the print
 * step told apart from the commit by the server's "render succeeded" lines) and the CPU per document, renderd's own
 * process against its Chromium's. */
export function splitRow(label: string, run: Run, cpu: CpuReport, poolMs: Map<string, number>): string {
  const s = splitOf(run, poolMs);
  const ms = (x: number) => (Number.isNaN(x) ? "–" : x.toFixed(1));
  const per = (total: number) => (total / run.figures.documents).toFixed(1);
  const cells = [label, ms(s.total), ms(s.accept), ms(s.queue), ms(s.print), ms(s.commit), ms(s.answer), per(cpu.renderd), per(cpu.browser + cpu.renderers + cpu["gpu, utility"])];
  return `| ${cells.join(" | ")} |`;
}

/** Split is a series' medians per phase, ms: `commit` is the print step less pool.render() (the server's log line). */
interface Split {
  total: number;
  accept: number;
  queue: number;
  print: number;
  commit: number;
  answer: number;
}

/** splitOf answers a series' split (NaN for the print and commit when no "render succeeded" line was read). */
function splitOf(run: Run, poolMs: Map<string, number>): Split {
  const t = run.timings;
  const withPool = t.filter((x) => poolMs.has(x.id));
  const ms = (xs: number[]) => (xs.length ? median(xs) : NaN);
  return {
    total: ms(t.map((x) => x.ms)),
    accept: ms(t.map((x) => x.accept)),
    queue: ms(t.map((x) => x.queue)),
    print: ms(withPool.map((x) => poolMs.get(x.id)!)),
    commit: ms(withPool.map((x) => x.print - poolMs.get(x.id)!)),
    answer: ms(t.map((x) => x.answer)),
  };
}

/** The worker's steps after a claim, as its "render succeeded" line names them (src/render/worker.ts, lib/laps.ts). */
const LAPS = ["finish", "hold", "write", "statements", "commit"] as const;

/** LAPS_HEADER heads the table of renderd's own steps that lapsRow writes. */
export const LAPS_HEADER = [
  "| series | finish: metadata, seal | hold: a PDF over 4 MiB | write: a PDF over 4 MiB durable on disk | statements: final state, PDF spooled | commit: COMMIT (fsync), next claim | all five |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
];

/** lapsRow is one line of renderd's own steps between pool.render() and the final state committed — the split's
 * `commit` in parts, to the hundredth of a ms (medians of the server's laps for the run's renders). */
export function lapsRow(label: string, run: Run, laps: Map<string, Record<string, number>>): string {
  const rows = run.timings.map((t) => laps.get(t.id)).filter((r) => r !== undefined);
  const ms = (xs: number[]) => (xs.length ? median(xs).toFixed(2) : "–");
  const cells = LAPS.map((name) => ms(rows.map((r) => r[name] ?? 0)));
  return `| ${[label, ...cells, ms(rows.map((r) => LAPS.reduce((sum, name) => sum + (r[name] ?? 0), 0)))].join(" | ")} |`;
}

/** OWN_HEADER heads the table of renderd's own milliseconds per render that ownRow writes. */
export const OWN_HEADER = [
  "| series | accept: HTTP in, check, compile, insert | claim and wake: the wait less the worker's steps | before the print: the print lap less pool.render() | finish | hold | write | statements | commit | answer: the response | renderd's own: all but pool.render() |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
];

/** OwnLogs are the server's log lines a render's own milliseconds are read from. */
export interface OwnLogs {
  poolMs: Map<string, number>;
  laps: Map<string, Record<string, number>>;
  requestLaps: Map<string, Record<string, number>>;
}

// One render's own milliseconds by step, or null when a log line is missing.
function ownSteps(t: Run["timings"][number], logs: OwnLogs): Record<string, number> | null {
  const [pool, worker, request] = [logs.poolMs.get(t.id), logs.laps.get(t.id), logs.requestLaps.get(t.requestId)];
  if (pool === undefined || !worker || !request) return null;
  const step = (name: string) => worker[name] ?? 0;
  const workerSum = LAPS.reduce((sum, name) => sum + step(name), step("print"));
  return {
    accept: request.accept!,
    claimAndWake: request.wait! - workerSum,
    beforePrint: step("print") - pool,
    ...Object.fromEntries(LAPS.map((name) => [name, step(name)])),
    answer: request.answer!,
    own: request.accept! + request.wait! - pool + request.answer!,
  };
}

/** ownOf answers the median of renderd's own milliseconds per render in a run (NaN without the log lines). */
export function ownOf(run: Run, logs: OwnLogs): number {
  const own = run.timings.map((t) => ownSteps(t, logs)?.own).filter((x) => x !== undefined);
  return own.length ? median(own) : NaN;
}

/** ownRow is one line of renderd's own milliseconds per render: everything the server does for a `?wait` render but
 * pool.render(), from the request's arrival to its answer, by step, to the hundredth (medians of the log's laps). */
export function ownRow(label: string, run: Run, logs: OwnLogs): string {
  const rows = run.timings.map((t) => ownSteps(t, logs)).filter((r) => r !== null);
  const cell = (name: string) => (rows.length ? median(rows.map((r) => r[name]!)).toFixed(2) : "–");
  return `| ${[label, ...["accept", "claimAndWake", "beforePrint", ...LAPS, "answer", "own"].map(cell)].join(" | ")} |`;
}

/** cpuRow is one line of the CPU table: ms per document by kind of process, and cores busy (ours, others). */
export function cpuRow(label: string, cpu: CpuReport, documents: number): string {
  const per = (ms: number) => (ms / documents).toFixed(1);
  const ours = CPU_CLASSES.filter((c) => c !== "others").reduce((sum, c) => sum + cpu[c], 0);
  const cores = (ms: number) => (ms / cpu.wallMs).toFixed(2);
  return `| ${[label, ...CPU_CLASSES.filter((c) => c !== "others").map((c) => per(cpu[c])), per(ours), cores(ours), cores(cpu.others)].join(" | ")} |`;
}

/** slope fits y = a + b·x by least squares and answers b. */
export function slope(points: [number, number][]): number {
  const n = points.length;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const sxy = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0);
  const sxx = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}
