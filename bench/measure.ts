/** bench/measure: what bench/render.ts reads from /proc — the memory of renderd's Chromium processes, and where a series' CPU goes. */
import { readFileSync } from "node:fs";
import { commandLine, descendants, hasSwitch, listProcesses, proportionalBytes, residentBytes, type ProcessInfo } from "../src/render/browser";
import type { Server } from "./server";

// Memory: the Chromium processes below the renderd child, plus their crash handlers (setsid, found as the pool does).

export interface Memory {
  processes: number;
  rssBytes: number;
  pssBytes: number;
  serverRssBytes: number;
}

/** chromiumProcesses lists the live Chromium processes below `root`, and their crash handlers. */
export function chromiumProcesses(root: number): ProcessInfo[] {
  const all = listProcesses();
  const alive = (p: ProcessInfo) => p.state !== "Z" && p.state !== "X";
  const found = new Map(descendants(root, all).filter(alive).map((p) => [p.pid, p]));
  const dirs = [...found.values()].flatMap((p) => commandLine(p.pid).flatMap((arg) => [...arg.matchAll(/--renderd-browser=(\S+)/g)].map((m) => m[1]!)));
  for (const p of all) {
    if (found.has(p.pid) || !alive(p) || !p.name.startsWith("chrome_crashpad")) continue;
    if (commandLine(p.pid).some((arg) => arg.startsWith("--database=") && dirs.some((dir) => arg.includes(dir)))) found.set(p.pid, p);
  }
  return [...found.values()];
}

/** memory reads the resident memory of renderd's Chromium processes (VmRSS and Pss summed) and of renderd itself. */
export function memory(server: Server): Memory {
  const processes = chromiumProcesses(server.pid);
  return {
    processes: processes.length,
    rssBytes: processes.reduce((sum, p) => sum + residentBytes(p.pid), 0),
    pssBytes: processes.reduce((sum, p) => sum + proportionalBytes(p.pid), 0),
    serverRssBytes: residentBytes(server.pid),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// CPU: where a series' processor time goes, read from /proc every 100 ms (a process that ends between two reads
// loses at most its last 100 ms). Everything the machine did besides renderd, its Chromium and this client is "others":
// the machine is shared, and that column says how much of it a series had.

const TICK_MS = 1000 / 100; // CLK_TCK is 100 on Linux

/** cpuMs answers a process's user + system time in ms — or one of its threads' with `tid` — or null when it is gone. */
export function cpuMs(pid: number, tid?: string): number | null {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return null;
  }
}

function cpuTicks(): number[] {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
  return ticks;
}

/** machineBusyMs answers the busy time of all CPUs together (everything but idle and iowait), in ms. */
export function machineBusyMs(): number {
  const [user, nice, system, , , irq, softirq, steal] = cpuTicks() as number[];
  return (user! + nice! + system! + irq! + softirq! + steal!) * TICK_MS;
}

/** machineStealMs answers the part of machineBusyMs the hypervisor gave to other guests, in ms. */
export function machineStealMs(): number {
  return cpuTicks()[7]! * TICK_MS;
}

export const CPU_CLASSES = ["renderd", "browser", "renderers", "gpu, utility", "client", "others"] as const;
type CpuClass = (typeof CPU_CLASSES)[number];

/** CpuReport is the CPU time of one series by kind of process, in ms. */
export type CpuReport = Record<CpuClass, number> & { wallMs: number };

function classOf(pid: number, serverPid: number): CpuClass {
  if (pid === serverPid) return "renderd";
  const args = commandLine(pid);
  if (hasSwitch(args, "--type=renderer")) return "renderers";
  return args.some((arg) => /(^|\s)--type=/.test(arg)) ? "gpu, utility" : "browser";
}

/** serverProcesses lists renderd and its Chromium processes. */
export function serverProcesses(server: Server): number[] {
  return [server.pid, ...chromiumProcesses(server.pid).map((p) => p.pid)];
}

/** referenceProcesses lists the Chromium processes this script started itself (the references), not renderd's. */
export function referenceProcesses(server: Server): number[] {
  const all = listProcesses();
  const theirs = new Set([server.pid, ...descendants(server.pid, all).map((p) => p.pid)]);
  return descendants(process.pid, all)
    .filter((p) => !theirs.has(p.pid) && p.state !== "Z")
    .map((p) => p.pid);
}

/** measureCpu runs `fn` while reading the CPU time of the processes `pids()` lists (renderd's or the references'),
 * this client, and the whole machine. */
export async function measureCpu<T>(pids: () => number[], serverPid: number, fn: () => Promise<T>): Promise<{ value: T; cpu: CpuReport }> {
  const seen = new Map<number, { cls: CpuClass; first: number; last: number }>();
  const sample = (baseline: boolean) => {
    for (const pid of pids()) {
      const ms = cpuMs(pid);
      if (ms === null) continue;
      const known = seen.get(pid);
      // A process first seen after the start began during the series: all its time counts.
      if (known) known.last = ms;
      else seen.set(pid, { cls: classOf(pid, serverPid), first: baseline ? ms : 0, last: ms });
    }
  };
  sample(true);
  const busy0 = machineBusyMs();
  const client0 = process.cpuUsage();
  const wall = performance.now();
  const timer = setInterval(() => sample(false), 100);
  try {
    const value = await fn();
    sample(false);
    const cpu = Object.fromEntries(CPU_CLASSES.map((c) => [c, 0])) as CpuReport;
    for (const p of seen.values()) cpu[p.cls] += p.last - p.first;
    const client = process.cpuUsage(client0);
    cpu.client = (client.user + client.system) / 1000;
    const ours = CPU_CLASSES.filter((c) => c !== "others").reduce((sum, c) => sum + cpu[c], 0);
    cpu.others = Math.max(0, machineBusyMs() - busy0 - ours);
    cpu.wallMs = performance.now() - wall;
    return { value, cpu };
  } finally {
    clearInterval(timer);
  }
}

/** addCpu sums two CPU reports. */
export function addCpu(a: CpuReport, b: CpuReport): CpuReport {
  const sum = { ...a };
  for (const c of CPU_CLASSES) sum[c] += b[c];
  sum.wallMs += b.wallMs;
  return sum;
}
