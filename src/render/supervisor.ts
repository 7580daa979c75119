/**
 * supervisor: the browser processes of the pool (Gotenberg's supervisor: start, stop, healthy, restart). It launches
 * them, pings them from a watchdog, kills a hung one by its process group and relaunches it with a backoff; the
 * pages living in a browser are the pool's (pages.ts), told through SupervisorHooks. See docs/pool.md.
 */
import { ApiError } from "../errors";
import type { Clock } from "../lib/clock";
import { BrowserProcess, launchOptions } from "./browser";
import { processTempDir, releaseTempDir } from "./tempdir";

/** PoolLog is the part of a pino logger the pool writes to. */
export interface PoolLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** PoolState is where the pool is in its life; only a running pool restarts browsers and reopens pages. */
export type PoolState = "stopped" | "starting" | "running" | "stopping";

/** PoolCrashError is a render lost to a crashed page or browser: RENDER_FAILED, but worth one retry (the pool has replaced what crashed). */
export class PoolCrashError extends ApiError {
  readonly kind: "page" | "browser";
  constructor(kind: "page" | "browser", message: string) {
    super("RENDER_FAILED", message);
    this.name = "PoolCrashError";
    this.kind = kind;
  }
}

/** BrowserSlot is one place for a browser: the process running there now (none while it restarts). */
export interface BrowserSlot {
  index: number;
  process?: BrowserProcess;
  starting?: Promise<void>;
  restarts: number;
}

/** SupervisorOptions are the pool settings the supervisor needs. */
export interface SupervisorOptions {
  chromiumPath: string;
  maxHeapBytes?: number;
  tempBase?: string;
  hangTimeoutMs: number;
  healthIntervalMs: number;
  clock: Clock;
  log?: PoolLog;
}

/** SupervisorHooks are how the supervisor reads the pool's state and tells the pages what happened to their browser. */
export interface SupervisorHooks {
  state(): PoolState;
  /** lost: the browser is gone; its renders fail with `error`, its other pages go down. */
  lost(b: BrowserSlot, error: PoolCrashError): void;
  /** back: a new browser runs in the slot; its pages open again. */
  back(b: BrowserSlot): Promise<void>;
  /** checked: the watchdog found the browser answering. */
  checked(b: BrowserSlot, p: BrowserProcess): void;
}

const MAX_LAUNCH_BACKOFF_MS = 30_000;

/** BrowserSupervisor starts, watches, restarts and stops the pool's browser processes. */
export class BrowserSupervisor {
  readonly browsers: BrowserSlot[] = [];
  readonly counters = { hangs: 0, browserRestarts: 0 };
  private watchdog?: ReturnType<typeof setInterval>;
  private checking = false;
  /** Aborted by halt(): ends the waits between launch attempts at once. */
  private halted = new AbortController();
  /** This process's folder for the browsers' temporary files (tempdir.ts), made by the first launch. */
  private tempDir?: string;

  constructor(
    private readonly options: SupervisorOptions,
    private readonly hooks: SupervisorHooks,
  ) {}

  /** place makes `count` empty browser slots for a start. */
  place(count: number): void {
    this.halted = new AbortController();
    this.browsers.length = 0;
    for (let index = 0; index < count; index++) this.browsers.push({ index, restarts: 0 });
  }

  /** start launches a browser in every slot; on failure the caller stops what started (closeAll). */
  async start(): Promise<void> {
    await Promise.all(this.browsers.map(async (b) => (b.process = await this.launch(b))));
  }

  /** watch starts the watchdog (once the pool runs). */
  watch(): void {
    this.watchdog = setInterval(() => void this.check(), this.options.healthIntervalMs);
    this.watchdog.unref?.();
  }

  /** halt stops the watchdog and the waits between restart attempts, and waits for launches under way to end. */
  async halt(): Promise<void> {
    this.halted.abort();
    clearInterval(this.watchdog);
    await Promise.all(this.browsers.map((b) => b.starting?.catch(() => {})));
  }

  /** closeAll closes every browser (killing any that does not close in time) and removes this process's temporary folder. */
  async closeAll(): Promise<void> {
    await Promise.all(
      this.browsers.map(async (b) => {
        const p = b.process;
        b.process = undefined;
        await p?.close(this.options.hangTimeoutMs);
      }),
    );
    if (this.tempDir) releaseTempDir(this.tempDir);
  }

  /** connected answers whether playwright speaks to every browser. */
  connected(): boolean {
    return this.browsers.every((b) => b.process?.connected);
  }

  /** pids answers the pid (and process group) of each running browser. */
  pids(): number[] {
    return this.browsers.flatMap((b) => (b.process ? [b.process.pid] : []));
  }

  /** hung kills a browser that stopped answering (process group and stragglers) and restarts it. */
  hung(p: BrowserProcess, why: string): void {
    const b = this.browsers.find((candidate) => candidate.process === p);
    if (!b || this.hooks.state() !== "running") return;
    this.counters.hangs++;
    this.options.log?.error({ pid: p.pid, why }, "browser hung: killing its process group");
    this.restart(b, p, why);
  }

  /** launch starts one browser and watches it for a disconnect. */
  private async launch(b: BrowserSlot): Promise<BrowserProcess> {
    const p = await BrowserProcess.launch(launchOptions(this.options, (this.tempDir ??= processTempDir(this.options.tempBase))), this.options.clock.now());
    p.browser.on("disconnected", () => {
      if (b.process === p && this.hooks.state() === "running") this.restart(b, p, "the browser disconnected");
    });
    return p;
  }

  /** restart replaces a dead or hung browser: renders on it fail with PoolCrashError, its pages reopen in the new one. */
  private restart(b: BrowserSlot, dead: BrowserProcess, why: string): void {
    if (b.process !== dead) return;
    const { hangTimeoutMs, log } = this.options;
    b.process = undefined;
    b.restarts++;
    this.counters.browserRestarts++;
    log?.warn({ pid: dead.pid, why }, "restarting browser");
    this.hooks.lost(b, new PoolCrashError("browser", `The browser was lost during the render (${why}); it is being restarted.`));
    dead.kill();
    void dead.close(hangTimeoutMs).catch(() => {});
    b.starting = (async () => {
      for (let attempt = 0; this.hooks.state() === "running"; attempt++) {
        try {
          const p = await this.launch(b);
          if (this.hooks.state() !== "running") {
            await p.close(hangTimeoutMs);
            return;
          }
          b.process = p;
          break;
        } catch (e) {
          const wait = Math.min(MAX_LAUNCH_BACKOFF_MS, 500 * 2 ** attempt);
          log?.error({ error: (e as Error).message, retryInMs: wait }, "browser did not restart");
          await pause(wait, this.halted.signal);
        }
      }
      if (!b.process) return;
      log?.info({ pid: b.process.pid }, "browser restarted");
      await this.hooks.back(b);
    })().finally(() => (b.starting = undefined));
  }

  /** check is the watchdog: ping every browser (a hung one is killed), then let the pages look at it. */
  private async check(): Promise<void> {
    if (this.checking || this.hooks.state() !== "running") return;
    this.checking = true;
    try {
      await Promise.all(
        this.browsers.map(async (b) => {
          const p = b.process;
          if (!p || b.starting) return;
          if (!(await p.ping(this.options.hangTimeoutMs))) return this.hung(p, "no answer to a CDP call");
          this.hooks.checked(b, p);
        }),
      );
    } finally {
      this.checking = false;
    }
  }
}

/** pause waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
