/**
 * pool: the Chromium pool of DESIGN.md 4 "Execution" (Gotenberg style: start/stop/healthy), the one module the rest of
 * renderd uses. It owns every render limit (the deadline, the page and byte limits) and answers stats(); its parts
 * are the supervisor of the browser processes (supervisor.ts), the warm pages (pages.ts), the request guard
 * (guard.ts), the print itself (print.ts) and the one timeout helper (timeout.ts). See docs/pool.md.
 */
import type { Config } from "../config";
import { ApiError } from "../errors";
import { systemClock, type Clock } from "../lib/clock";
import { PageSlots, type Slot, type SlotState } from "./pages";
import { countPdfPages } from "./pdf";
import { blockedError, print, type RenderJob, type RenderOutput } from "./print";
import { BrowserSupervisor, PoolCrashError, type PoolLog, type PoolState } from "./supervisor";
import { WarningList } from "./warnings";

// The names the pool's callers use, wherever they are defined: callers import them from here.
export type { AssetBody, AssetLoader, RenderJob, RenderOutput } from "./print";
export { PoolCrashError } from "./supervisor";

/** RenderPoolOptions are the pool's settings; poolOptions() fills them from the configuration. */
export interface RenderPoolOptions {
  /** Warm pages, i.e. renders at once (RENDER_WORKERS). */
  size: number;
  /** CHROMIUM_PATH. */
  chromiumPath: string;
  /** RENDER_TIMEOUT_MS: the longest a render may take; a job's deadlineMs may only shorten it. */
  timeoutMs: number;
  /** RENDER_RECYCLE_AFTER: renders per page before it is closed and replaced (default 1000). */
  recycleAfter?: number;
  /** RENDER_MAX_PAGE_MEMORY_BYTES (0 or unset = off): renderer memory budget per page; when the renderers of a browser hold more than this times its pages (Pss), the busiest page is replaced. */
  maxPageMemoryBytes?: number;
  /** RENDER_MAX_PAGES (default 500). */
  maxPages?: number;
  /** RENDER_MAX_OUTPUT_BYTES (default 50 MB). */
  maxOutputBytes?: number;
  /** RENDER_MAX_HEAP_BYTES: `--js-flags=--max-old-space-size` of every renderer. */
  maxHeapBytes?: number;
  /** Browser processes the pages are spread over (default 1). */
  browsers?: number;
  /** A browser that does not answer a CDP call or close a page within this is hung, and killed (default 5000). */
  hangTimeoutMs?: number;
  /** How often the watchdog pings each browser and weighs its renderers (default 10000). */
  healthIntervalMs?: number;
  /** The folder of renderd's temporary folders (default `$TMPDIR/renderd-<uid>`, tempdir.ts). */
  tempBase?: string;
  clock?: Clock;
  log?: PoolLog;
}

/** PoolStats is a snapshot for /metrics and the operator. */
export interface PoolStats {
  state: PoolState;
  healthy: boolean;
  size: number;
  idle: number;
  busy: number;
  /** Pages being opened, reset or replaced. */
  preparing: number;
  /** render() calls waiting for a page. */
  waiting: number;
  rendered: number;
  failed: number;
  timeouts: number;
  crashes: number;
  hangs: number;
  /** Pages replaced after recycleAfter renders or over the memory budget. */
  recycled: number;
  /** Pages opened since start (size at start, one more per replacement). */
  pagesOpened: number;
  browserRestarts: number;
  /** Resets that moved a page to a new Document because its last job fetched more than its own scoped assets. */
  freshDocuments: number;
  pages: { id: number; state: SlotState; renders: number; generation: number }[];
  browsers: { pid: number | null; startedAt: string | null; connected: boolean; restarts: number }[];
  /** VmRSS summed over every process of every browser (renderers, GPU, utility, crash handlers); counts shared pages once per process. */
  rssBytes: number;
  /** Pss summed over the same processes: shared pages split between them, so this is what the browsers really hold. */
  pssBytes: number;
}

/** RenderPool keeps warm Chromium pages and prints documents on them; one instance per process. */
export class RenderPool {
  private state: PoolState = "stopped";
  private starting?: Promise<void>;
  private readonly supervisor: BrowserSupervisor;
  private readonly pages: PageSlots;
  private readonly counters = { rendered: 0, failed: 0, timeouts: 0 };

  private readonly size: number;
  /** RENDER_MAX_PAGES and RENDER_MAX_OUTPUT_BYTES: finish.ts checks the finished PDF against them too. */
  readonly maxPages: number;
  readonly maxOutputBytes: number;
  private readonly log?: PoolLog;

  constructor(private readonly options: RenderPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1) throw new Error(`RenderPool size must be a whole number ≥ 1 (was ${options.size}).`);
    this.size = options.size;
    this.maxPages = options.maxPages ?? 500;
    this.maxOutputBytes = options.maxOutputBytes ?? 50_000_000;
    const hangTimeoutMs = options.hangTimeoutMs ?? 5_000;
    this.log = options.log;
    const state = () => this.state;
    this.supervisor = new BrowserSupervisor(
      {
        chromiumPath: options.chromiumPath,
        maxHeapBytes: options.maxHeapBytes,
        tempBase: options.tempBase,
        hangTimeoutMs,
        healthIntervalMs: options.healthIntervalMs ?? 10_000,
        clock: options.clock ?? systemClock,
        log: this.log,
      },
      {
        state,
        lost: (b, error) => this.pages.lost(b, error),
        back: (b) => this.pages.back(b),
        checked: (b, p) => this.pages.checked(b, p),
      },
    );
    this.pages = new PageSlots(
      { size: this.size, recycleAfter: options.recycleAfter ?? 1000, maxPageMemoryBytes: options.maxPageMemoryBytes, hangTimeoutMs, log: this.log },
      this.supervisor,
      state,
    );
  }

  /** start launches the browsers and opens every page warm; it throws (and leaves nothing running) when Chromium cannot start. */
  async start(): Promise<void> {
    if (this.state === "running") return;
    if (this.state === "starting") return this.starting;
    if (this.state === "stopping") throw new Error("RenderPool is stopping.");
    this.state = "starting";
    this.starting = this.boot();
    try {
      await this.starting;
    } finally {
      this.starting = undefined;
    }
  }

  private async boot(): Promise<void> {
    this.supervisor.place(Math.min(this.options.browsers ?? 1, this.size));
    this.pages.place();
    try {
      await this.supervisor.start();
      await this.pages.openAll();
      const down = this.pages.slots.filter((slot) => slot.state !== "idle");
      if (down.length) throw new Error(`RenderPool could not open ${down.length} of ${this.size} pages.`);
    } catch (e) {
      this.state = "stopping";
      await this.closeAll();
      this.state = "stopped";
      throw e;
    }
    this.state = "running";
    this.supervisor.watch();
    this.log?.info({ size: this.size, browsers: this.supervisor.pids() }, "render pool started");
  }

  /** stop fails waiting and in-flight renders (INTERNAL, retryable: drain first for a graceful stop), closes every page and browser and waits until no Chromium process is left. */
  async stop(): Promise<void> {
    if (this.state === "stopped") return;
    if (this.state === "starting") await this.starting?.catch(() => {});
    if (this.state !== "running") return;
    this.state = "stopping";
    const halted = this.supervisor.halt();
    this.pages.interruptAll(new ApiError("INTERNAL", "The render pool is stopping."));
    await halted;
    await this.closeAll();
    this.state = "stopped";
    this.log?.info({}, "render pool stopped");
  }

  private async closeAll(): Promise<void> {
    await this.supervisor.closeAll();
    this.pages.detachAll();
  }

  /** healthy answers from the last checks, without a round trip: running, every browser connected, and at least one page usable. */
  healthy(): boolean {
    if (this.state !== "running" || !this.supervisor.connected()) return false;
    return this.pages.slots.some((slot) => slot.state === "idle" || slot.state === "busy" || slot.state === "resetting");
  }

  /** idle answers how many pages could take a render right now. */
  idle(): number {
    return this.pages.count("idle");
  }

  /** stats answers counters, pages, browsers and their resident memory (read from /proc now). */
  stats(): PoolStats {
    const { pages, supervisor } = this;
    const browsers = supervisor.browsers;
    return {
      state: this.state,
      healthy: this.healthy(),
      size: this.size,
      idle: pages.count("idle"),
      busy: pages.count("busy"),
      preparing: pages.count("opening") + pages.count("resetting") + pages.count("down"),
      waiting: pages.waiting(),
      rendered: this.counters.rendered,
      failed: this.counters.failed,
      timeouts: this.counters.timeouts,
      crashes: pages.counters.crashes,
      hangs: supervisor.counters.hangs,
      recycled: pages.counters.recycled,
      pagesOpened: pages.counters.pagesOpened,
      browserRestarts: supervisor.counters.browserRestarts,
      freshDocuments: pages.counters.freshDocuments,
      pages: pages.slots.map((slot) => ({ id: slot.id, state: slot.state, renders: slot.renders, generation: slot.generation })),
      browsers: browsers.map((b) => ({
        pid: b.process?.pid ?? null,
        startedAt: b.process?.startedAt.toISOString() ?? null,
        connected: b.process?.connected ?? false,
        restarts: b.restarts,
      })),
      rssBytes: browsers.reduce((sum, b) => sum + (b.process?.rssBytes() ?? 0), 0),
      pssBytes: browsers.reduce((sum, b) => sum + (b.process?.pssBytes() ?? 0), 0),
    };
  }

  /** browserPids answers the pid (and process group) of each running browser: for operators and tests. */
  browserPids(): number[] {
    return this.supervisor.pids();
  }

  /**
   * render prints one document on a warm page: it waits for a free page (first come, first served), loads the HTML
   * with setContent, prints it and checks the limits. It throws ApiError RENDER_TIMEOUT past the deadline,
   * LIMIT_EXCEEDED over the page or byte limit, PoolCrashError when the page or browser crashed under it,
   * RENDER_FAILED otherwise, and `signal.reason` when aborted.
   */
  async render(job: RenderJob, signal?: AbortSignal): Promise<RenderOutput> {
    if (this.state !== "running") throw new ApiError("INTERNAL", "The render pool is not running.");
    if (signal?.aborted) throw abortReason(signal);
    const started = performance.now();
    const budgetMs = Math.max(1, Math.min(job.deadlineMs ?? this.options.timeoutMs, this.options.timeoutMs));
    const maxPages = Math.min(job.maxPages ?? this.maxPages, this.maxPages);
    const maxOutputBytes = Math.min(job.maxOutputBytes ?? this.maxOutputBytes, this.maxOutputBytes);

    let interruption: Error | undefined;
    let fail!: (error: Error) => void;
    const interrupted = new Promise<never>((_, reject) => (fail = reject));
    interrupted.catch(() => {});
    const interrupt = (error: Error) => {
      interruption ??= error;
      fail(interruption);
    };
    const timer = setTimeout(
      () => interrupt(new ApiError("RENDER_TIMEOUT", `The render did not finish within ${budgetMs} ms.`)),
      budgetMs,
    );
    const onAbort = () => interrupt(abortReason(signal!));
    signal?.addEventListener("abort", onAbort, { once: true });

    const ticket = this.pages.acquire();
    let slot: Slot | undefined;
    let reusable = false;
    try {
      try {
        slot = await Promise.race([ticket.promise, interrupted]);
      } catch (e) {
        ticket.cancel();
        throw e;
      }
      slot.job = job;
      slot.warnings = new WarningList();
      slot.interrupt = interrupt;
      slot.renders++;
      slot.documentRenders++;
      const work = print(slot.page!, job, maxPages);
      work.catch(() => {});
      let buffer: Buffer;
      try {
        buffer = await Promise.race([work, interrupted]);
      } catch (e) {
        if (e === interruption) throw e;
        // A check of the loaded document refused it (checkLayout): the page itself is fine.
        reusable = e instanceof ApiError;
        throw reusable ? e : await this.explain(slot, e as Error);
      }
      reusable = true;
      slot.job = undefined;
      const warnings = slot.warnings.items;
      if (job.failOnBlockedResources && warnings.length > 0) throw blockedError(warnings[0]!);
      const bytes = buffer.byteLength;
      if (bytes > maxOutputBytes)
        throw new ApiError("LIMIT_EXCEEDED", `The PDF has ${bytes} bytes; the limit is ${maxOutputBytes}.`);
      // Counted on the array answered: finishing reads the same file (classic-file.ts reads one array once).
      const pdf = new Uint8Array(buffer.buffer, buffer.byteOffset, bytes);
      const pages = countPdfPages(pdf);
      // The page range printed stops one page past the limit, so a longer document is caught without printing it all.
      if (pages > maxPages) throw new ApiError("LIMIT_EXCEEDED", `The document has more than ${maxPages} pages.`);
      this.counters.rendered++;
      return { pdf, pages, bytes, ms: performance.now() - started, warnings };
    } catch (e) {
      this.counters.failed++;
      if (e instanceof ApiError && e.code === "RENDER_TIMEOUT") this.counters.timeouts++;
      throw e;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (slot) {
        slot.job = undefined;
        slot.warnings = undefined;
        slot.interrupt = undefined;
        this.pages.finish(slot, reusable);
      }
    }
  }

  /** explain turns a failed print into the error the caller sees: a crash as PoolCrashError, the rest RENDER_FAILED. */
  private async explain(slot: Slot, error: Error): Promise<Error> {
    // The crash event and the failed call arrive separately: give the event a moment to land first.
    await Bun.sleep(50);
    if (slot.crashed) return new PoolCrashError("page", "The render page crashed (out of memory?); it has been replaced.");
    if (slot.owner && (!slot.owner.connected || slot.browser.process !== slot.owner))
      return new PoolCrashError("browser", "The browser exited during the render; it is being restarted.");
    this.log?.warn({ page: slot.id, error: error.message.split("\n")[0] }, "render failed");
    return new ApiError("RENDER_FAILED", `The page could not be printed: ${error.message.split("\n")[0]}`);
  }
}

/** poolOptions maps the appliance's configuration onto the pool's options. */
export function poolOptions(config: Config, log?: PoolLog, clock?: Clock): RenderPoolOptions {
  return {
    size: config.renderWorkers,
    chromiumPath: config.chromiumPath,
    timeoutMs: config.renderTimeoutMs,
    maxPages: config.renderMaxPages,
    maxOutputBytes: config.renderMaxOutputBytes,
    maxHeapBytes: config.renderMaxHeapBytes,
    recycleAfter: config.renderRecycleAfter,
    maxPageMemoryBytes: config.renderMaxPageMemoryBytes,
    log,
    clock,
  };
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("The render was aborted.", "AbortError");
}
