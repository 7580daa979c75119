import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { ApiError } from "../../src/errors";
import { assetUrl } from "../../src/render/assets";
import { PoolCrashError, RenderPool, type AssetBody } from "../../src/render/pool";
import { until, rejection } from "../wait";

// bunfig.toml's [test] timeout is not applied by Bun 1.4.5; Chromium on two busy cores needs more than 5 s at times.
setDefaultTimeout(30_000);

// Crashes and hangs are made for real: signals to the Chromium processes this test process started, found in /proc.
let pool: RenderPool;

beforeAll(async () => {
  pool = new RenderPool({
    size: 2,
    chromiumPath: "/usr/bin/chromium",
    timeoutMs: 15_000,
    maxHeapBytes: 256 * 1024 * 1024,
    hangTimeoutMs: 2_500,
    healthIntervalMs: 300,
  });
  await pool.start();
});

afterAll(async () => {
  await pool.stop();
});

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  args: string[];
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // Chromium's children rewrite their title into one space-joined string: split on both.
      const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split(/[\0\s]+/).filter(Boolean);
      out.push({ pid: Number(name), state: fields[0], ppid: Number(fields[1]), pgid: Number(fields[2]), args });
    } catch {
      // ended while we looked
    }
  }
  return out;
}

const alive = (p: Proc) => p.state !== "Z" && p.state !== "X";

/** browserPid finds, in /proc, the Chromium browser process this test process started (no --type= switch). */
function browserPids(): number[] {
  return processes()
    .filter((p) => alive(p) && p.ppid === process.pid && p.args[0]?.endsWith("/chromium") && !p.args.some((a) => a.startsWith("--type=")))
    .map((p) => p.pid);
}

/** group answers the live processes of a browser's process group. */
const group = (pid: number) => processes().filter((p) => alive(p) && p.pgid === pid);

const renderers = (pid: number) =>
  group(pid).filter((p) => p.args.includes("--type=renderer") && !p.args.includes("--top-chrome-webui"));



/** stalled starts a render whose stylesheet is held until released: a render certainly in flight. */
function stalled(deadlineMs?: number): { render: Promise<unknown>; requested: Promise<void> } {
  let requested!: () => void;
  const asked = new Promise<void>((resolve) => (requested = resolve));
  const render = pool.render({
    html: `<link rel="stylesheet" href="${assetUrl("ast_hold")}"><p>in flight</p>`,
    assets: () => {
      requested();
      return new Promise<AssetBody | null>(() => {});
    },
    deadlineMs,
  });
  render.catch(() => {});
  return { render, requested: asked };
}

const healthyAgain = () => until(() => pool.healthy() && pool.idle() === 2);

describe("the supervisor recovers", () => {
  test("the browser found in /proc is the pool's, leads its own process group, and runs renderers with the heap flag", () => {
    const [pid] = browserPids();
    expect(pool.browserPids()).toEqual([pid]);
    expect(group(pid).length).toBeGreaterThan(3);
    const renderer = renderers(pid)[0];
    // A renderer's title replaces its command line, spaces between arguments, so the flag's value reads as two words.
    expect(renderer.args.join(" ")).toContain("--js-flags=--max-old-space-size=256 --heap-growing-percent=300");
    expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")).toContain("--host-resolver-rules=MAP * ~NOTFOUND");
  });

  test("renderers killed mid-render: PoolCrashError (page), the pages are replaced and the pool renders on", async () => {
    await healthyAgain();
    const before = pool.stats();
    const { render, requested } = stalled();
    await requested;
    for (const p of renderers(pool.browserPids()[0])) process.kill(p.pid, "SIGKILL");
    const error = await rejection(render);
    expect(error).toBeInstanceOf(PoolCrashError);
    expect((error as PoolCrashError).kind).toBe("page");
    expect((error as ApiError).code).toBe("RENDER_FAILED");
    await healthyAgain();
    const after = pool.stats();
    expect(after.crashes).toBeGreaterThanOrEqual(before.crashes + 1);
    expect(after.browserRestarts).toBe(before.browserRestarts);
    expect((await pool.render({ html: "<p>after the crash</p>" })).pages).toBe(1);
  });

  test("the browser SIGKILLed mid-render: PoolCrashError (browser), a new browser, the next job renders", async () => {
    await healthyAgain();
    const [old] = browserPids();
    const members = group(old).map((p) => p.pid);
    const { render, requested } = stalled();
    await requested;
    process.kill(old, "SIGKILL");
    const error = await rejection(render);
    expect(error).toBeInstanceOf(PoolCrashError);
    expect((error as PoolCrashError).kind).toBe("browser");
    // The next job waits for the restart rather than failing.
    const next = await pool.render({ html: "<p>after the browser died</p>" });
    expect(next.pages).toBe(1);
    const [now] = browserPids();
    expect(now).not.toBe(old);
    expect(pool.browserPids()).toEqual([now]);
    expect(pool.stats().browserRestarts).toBeGreaterThanOrEqual(1);
    await until(() => members.every((pid) => !processes().some((p) => p.pid === pid && alive(p))));
  });

  test("a hung browser (SIGSTOP) is found by the watchdog, killed by process group and replaced; the render on it fails over", async () => {
    await healthyAgain();
    const before = pool.stats();
    const [old] = browserPids();
    const members = group(old).map((p) => p.pid);
    process.kill(old, "SIGSTOP");
    try {
      const started = performance.now();
      const error = await rejection(pool.render({ html: "<p>on a frozen browser</p>", deadlineMs: 10_000 }));
      expect(error).toBeInstanceOf(PoolCrashError);
      expect((error as PoolCrashError).kind).toBe("browser");
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      // If the pool failed to kill it, do not leave a stopped browser behind.
      try {
        process.kill(old, "SIGCONT");
      } catch {
        // killed, as it should be
      }
    }
    await healthyAgain();
    expect(pool.stats().hangs).toBeGreaterThanOrEqual(before.hangs + 1);
    expect(browserPids()).not.toContain(old);
    await until(() => members.every((pid) => !processes().some((p) => p.pid === pid && alive(p))));
    expect((await pool.render({ html: "<p>after the hang</p>" })).pages).toBe(1);
  });

  test("pages spread over two browsers: while one restarts, the other keeps rendering", async () => {
    const two = new RenderPool({ size: 2, browsers: 2, chromiumPath: "/usr/bin/chromium", timeoutMs: 10_000 });
    await two.start();
    try {
      const pids = two.browserPids();
      expect(pids).toHaveLength(2);
      expect(new Set(pids).size).toBe(2);
      process.kill(pids[0], "SIGKILL");
      // Once the pool has seen the disconnect (a render that got there first fails with PoolCrashError, for its caller to retry).
      await until(() => !two.healthy());
      const outs = await Promise.all([1, 2, 3, 4].map((i) => two.render({ html: `<p>doc ${i}</p>` })));
      expect(outs.map((out) => out.pages)).toEqual([1, 1, 1, 1]);
      await until(() => two.healthy() && two.idle() === 2);
      expect(two.browserPids()).toContain(pids[1]);
      expect(two.browserPids()).not.toContain(pids[0]);
      expect(two.stats().browsers.map((b) => b.restarts).sort()).toEqual([0, 1]);
    } finally {
      await two.stop();
    }
  });

  test("a browser that will not start fails start() with a clear message and leaves nothing running", async () => {
    const broken = new RenderPool({ size: 1, chromiumPath: "/nonexistent/chromium", timeoutMs: 1000 });
    await expect(broken.start()).rejects.toThrow("/nonexistent/chromium");
    expect(broken.healthy()).toBe(false);
    await expect(broken.render({ html: "<p>x</p>" })).rejects.toMatchObject({ code: "INTERNAL" });
  });

  test("stop() fails renders in flight as INTERNAL (retryable) and leaves no Chromium process", async () => {
    await healthyAgain();
    const [pid] = browserPids();
    const mine = [...group(pid).map((p) => p.pid), pid];
    // Only this browser's crashpad handlers: those of other pools (earlier tests, other runs) are not this stop's business.
    const profile = processes()
      .find((p) => p.pid === pid)
      ?.args.join(" ")
      .match(/--renderd-browser=(\S+)/)?.[1];
    expect(profile).toBeTruthy();
    const crashpad = processes().filter((p) => alive(p) && p.args[0]?.endsWith("chrome_crashpad_handler") && p.args.some((a) => a.includes(profile!)));
    expect(crashpad.length).toBeGreaterThan(0);
    const { render, requested } = stalled();
    await requested;
    await pool.stop();
    const error = await rejection(render);
    expect((error as ApiError).code).toBe("INTERNAL");
    expect((error as ApiError).retryable).toBe(true);
    expect(pool.healthy()).toBe(false);
    expect(pool.stats().state).toBe("stopped");
    const left = processes().filter((p) => alive(p) && (mine.includes(p.pid) || p.pgid === pid || crashpad.some((c) => c.pid === p.pid)));
    expect(left).toEqual([]);
    expect(browserPids()).toEqual([]);
    await expect(pool.render({ html: "<p>x</p>" })).rejects.toMatchObject({ code: "INTERNAL" });
  });
});
