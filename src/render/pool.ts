/**
 * pool: the Chromium supervisor of DESIGN.md 4 "Execution" (Gotenberg style: start/stop/healthy). It keeps `size`
 * warm pages in one or more browser processes and owns every render limit and every restart: the deadline, the page
 * and byte limits, recycling after N renders or on memory, replacing crashed pages, killing hung browsers.
 * See docs/pool.md.
 */
import type { BrowserContext, Page, Route } from "playwright-core";
import type { Config } from "../config";
import { ApiError } from "../errors";
import { systemClock, type Clock } from "../lib/clock";
import { parseAssetUrl } from "./assets";
import { BrowserProcess, launchOptions } from "./browser";
import { checkLayout } from "./layout";
import { countPdfPages } from "./pdf";
import { processTempDir, releaseTempDir } from "./tempdir";
import { within } from "./timeout";
import { WarningList, warningFor, type RenderWarning } from "./warnings";

/** PdfSettings are the page.pdf options a job may set; the rest (outline off, page ranges) is the pool's. */
export interface PdfSettings {
  /** Paper format (A4, Letter…); A4 when neither it nor width and height are given. */
  format?: string;
  width?: string | number;
  height?: string | number;
  landscape?: boolean;
  margin?: { top?: string | number; right?: string | number; bottom?: string | number; left?: string | number };
  /** Let the document's CSS `@page` size win (the compile stage writes one). */
  preferCSSPageSize?: boolean;
  scale?: number;
  displayHeaderFooter?: boolean;
  headerTemplate?: string;
  footerTemplate?: string;
  /** Default true. */
  printBackground?: boolean;
  /** Default false: untagged PDFs are faster to print. */
  tagged?: boolean;
}

/** AssetBody is what an asset loader answers: the bytes and their media type. */
export interface AssetBody {
  body: Uint8Array;
  contentType: string;
}

/** AssetLoader answers the asset an asset URL names (see parseAssetUrl), or null when there is none. */
export type AssetLoader = (url: string) => Promise<AssetBody | null>;

/** RenderJob is one document to print. Limits given here may only lower the pool's. */
export interface RenderJob {
  html: string;
  pdf?: PdfSettings;
  assets?: AssetLoader;
  /**
   * The scope this job's asset URLs were made with (`assetUrl(id, scope)`, a fresh newAssetScope() per render).
   * Only asset URLs of this scope are served. A page whose Document fetched nothing but this scope's assets is reused
   * as it is, at once; any other request (unscoped asset URLs included) makes the pool move the page to a new Document
   * after the render (~25 ms, about twice the CPU of a small render): see RenderPool.reset.
   */
  assetScope?: string;
  /** Milliseconds from the call to render() — waiting for a page included — to a finished PDF. */
  deadlineMs?: number;
  maxPages?: number;
  maxOutputBytes?: number;
  /** Fail the render (RENDER_FAILED, naming the first) when the page asked for anything it did not get. */
  failOnBlockedResources?: boolean;
}

/** RenderOutput is a printed PDF, its page count, its size, the milliseconds render() took and what the page asked for
 * and did not get. */
export interface RenderOutput {
  pdf: Uint8Array;
  pages: number;
  bytes: number;
  ms: number;
  warnings: RenderWarning[];
}

/** PoolLog is the part of a pino logger the pool writes to. */
export interface PoolLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** RenderPoolOptions are the pool's settings; poolOptions() fills them from the configuration. */
export interface RenderPoolOptions {
  /** Warm pages, i.e. renders at once (RENDER_WORKERS). */
  size: number;
  /** CHROMIUM_PATH. */
  chromiumPath: string;
  /** RENDER_TIMEOUT_MS: the longest a render may take; a job's deadlineMs may only shorten it. */
  timeoutMs: number;
  /** RENDER_RECYCLE_AFTER: renders per page before it is closed and replaced (default 200). */
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

/** PoolCrashError is a render lost to a crashed page or browser: RENDER_FAILED, but worth one retry (the pool has replaced what crashed). */
export class PoolCrashError extends ApiError {
  readonly kind: "page" | "browser";
  constructor(kind: "page" | "browser", message: string) {
    super("RENDER_FAILED", message);
    this.name = "PoolCrashError";
    this.kind = kind;
  }
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

type PoolState = "stopped" | "starting" | "running" | "stopping";
type SlotState = "opening" | "idle" | "busy" | "resetting" | "down";

interface Slot {
  id: number;
  browser: BrowserSlot;
  state: SlotState;
  /** The browser the current page lives in: a late failure of an old page must not blame its successor's browser. */
  owner?: BrowserProcess;
  context?: BrowserContext;
  page?: Page;
  /** Renders on the current page. */
  renders: number;
  /** Renders after which the current page is replaced: recycleAfter, less for the first pages (staggered). */
  recycleAt: number;
  /** Pages this slot has had. */
  generation: number;
  /** The job whose assets the route handler serves; undefined between renders, so late requests are aborted. */
  job?: RenderJob;
  /** What the job in flight asked for and did not get. */
  warnings?: WarningList;
  /** Fails the render in flight on this slot. */
  interrupt?: (error: Error) => void;
  /** The current Document has fetched something another job could be served from its caches (see reset). */
  tainted: boolean;
  crashed: boolean;
  recycle: boolean;
  retry?: ReturnType<typeof setTimeout>;
}

interface BrowserSlot {
  index: number;
  process?: BrowserProcess;
  starting?: Promise<void>;
  restarts: number;
}

interface Waiter {
  resolve: (slot: Slot) => void;
  reject: (error: Error) => void;
  slot?: Slot;
}

const WARM_UP_HTML = "<!DOCTYPE html><html><body><p>warm</p></body></html>";
const MAX_LAUNCH_BACKOFF_MS = 30_000;

/** RenderPool keeps warm Chromium pages and prints documents on them; one instance per process. */
export class RenderPool {
  private state: PoolState = "stopped";
  private starting?: Promise<void>;
  private readonly slots: Slot[] = [];
  private readonly browsers: BrowserSlot[] = [];
  private readonly waiters: Waiter[] = [];
  private watchdog?: ReturnType<typeof setInterval>;
  private checking = false;
  /** Aborted by stop(): ends the waits between launch attempts at once. */
  private halt = new AbortController();
  /** This process's folder for the browsers' temporary files (tempdir.ts), made by the first launch. */
  private tempDir?: string;
  private readonly counters = { rendered: 0, failed: 0, timeouts: 0, crashes: 0, hangs: 0, recycled: 0, pagesOpened: 0, browserRestarts: 0, freshDocuments: 0 };

  private readonly size: number;
  private readonly recycleAfter: number;
  private readonly maxPages: number;
  private readonly maxOutputBytes: number;
  private readonly hangTimeoutMs: number;
  private readonly healthIntervalMs: number;
  private readonly clock: Clock;
  private readonly log?: PoolLog;

  constructor(private readonly options: RenderPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1) throw new Error(`RenderPool size must be a whole number ≥ 1 (was ${options.size}).`);
    this.size = options.size;
    this.recycleAfter = options.recycleAfter ?? 200;
    this.maxPages = options.maxPages ?? 500;
    this.maxOutputBytes = options.maxOutputBytes ?? 50_000_000;
    this.hangTimeoutMs = options.hangTimeoutMs ?? 5_000;
    this.healthIntervalMs = options.healthIntervalMs ?? 10_000;
    this.clock = options.clock ?? systemClock;
    this.log = options.log;
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
    const count = Math.min(this.options.browsers ?? 1, this.size);
    this.halt = new AbortController();
    this.browsers.length = 0;
    this.slots.length = 0;
    for (let index = 0; index < count; index++) this.browsers.push({ index, restarts: 0 });
    for (let id = 0; id < this.size; id++) {
      // The first pages recycle at staggered counts, so that under an even load they are not all replaced at once.
      const recycleAt = this.recycleAfter - Math.floor((id * this.recycleAfter) / this.size);
      this.slots.push({ id, browser: this.browsers[id % count], state: "down", renders: 0, recycleAt, generation: 0, crashed: false, recycle: false, tainted: false });
    }
    try {
      await Promise.all(this.browsers.map(async (b) => (b.process = await this.launch(b))));
      await Promise.all(this.slots.map((slot) => this.open(slot)));
      const down = this.slots.filter((slot) => slot.state !== "idle");
      if (down.length) throw new Error(`RenderPool could not open ${down.length} of ${this.size} pages.`);
    } catch (e) {
      this.state = "stopping";
      await this.closeAll();
      this.state = "stopped";
      throw e;
    }
    this.state = "running";
    this.watchdog = setInterval(() => void this.check(), this.healthIntervalMs);
    this.watchdog.unref?.();
    this.log?.info({ size: this.size, browsers: this.browsers.map((b) => b.process?.pid) }, "render pool started");
  }

  /** stop fails waiting and in-flight renders (INTERNAL, retryable: drain first for a graceful stop), closes every page and browser and waits until no Chromium process is left. */
  async stop(): Promise<void> {
    if (this.state === "stopped") return;
    if (this.state === "starting") await this.starting?.catch(() => {});
    if (this.state !== "running") return;
    this.state = "stopping";
    this.halt.abort();
    clearInterval(this.watchdog);
    const stopping = new ApiError("INTERNAL", "The render pool is stopping.");
    for (const waiter of this.waiters.splice(0)) waiter.reject(stopping);
    for (const slot of this.slots) {
      clearTimeout(slot.retry);
      slot.interrupt?.(stopping);
    }
    await Promise.all(this.browsers.map((b) => b.starting?.catch(() => {})));
    await this.closeAll();
    this.state = "stopped";
    this.log?.info({}, "render pool stopped");
  }

  private async closeAll(): Promise<void> {
    await Promise.all(
      this.browsers.map(async (b) => {
        const p = b.process;
        b.process = undefined;
        await p?.close(this.hangTimeoutMs);
      }),
    );
    for (const slot of this.slots) detach(slot, "down");
    if (this.tempDir) releaseTempDir(this.tempDir);
  }

  /** ending answers whether stop() has begun (read through a getter so TypeScript does not narrow it across awaits). */
  private get ending(): boolean {
    return this.state === "stopping" || this.state === "stopped";
  }

  /** healthy answers from the last checks, without a round trip: running, every browser connected, and at least one page usable. */
  healthy(): boolean {
    if (this.state !== "running") return false;
    if (this.browsers.some((b) => !b.process?.connected)) return false;
    return this.slots.some((slot) => slot.state === "idle" || slot.state === "busy" || slot.state === "resetting");
  }

  /** idle answers how many pages could take a render right now. */
  idle(): number {
    return this.slots.filter((slot) => slot.state === "idle").length;
  }

  /** stats answers counters, pages, browsers and their resident memory (read from /proc now). */
  stats(): PoolStats {
    const count = (state: SlotState) => this.slots.filter((slot) => slot.state === state).length;
    return {
      state: this.state,
      healthy: this.healthy(),
      size: this.size,
      idle: count("idle"),
      busy: count("busy"),
      preparing: count("opening") + count("resetting") + count("down"),
      waiting: this.waiters.length,
      ...this.counters,
      pages: this.slots.map((slot) => ({ id: slot.id, state: slot.state, renders: slot.renders, generation: slot.generation })),
      browsers: this.browsers.map((b) => ({
        pid: b.process?.pid ?? null,
        startedAt: b.process?.startedAt.toISOString() ?? null,
        connected: b.process?.connected ?? false,
        restarts: b.restarts,
      })),
      rssBytes: this.browsers.reduce((sum, b) => sum + (b.process?.rssBytes() ?? 0), 0),
      pssBytes: this.browsers.reduce((sum, b) => sum + (b.process?.pssBytes() ?? 0), 0),
    };
  }

  /** browserPids answers the pid (and process group) of each running browser: for operators and tests. */
  browserPids(): number[] {
    return this.browsers.flatMap((b) => (b.process ? [b.process.pid] : []));
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

    const ticket = this.acquire();
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
      const pages = countPdfPages(buffer);
      // The page range printed stops one page past the limit, so a longer document is caught without printing it all.
      if (pages > maxPages) throw new ApiError("LIMIT_EXCEEDED", `The document has more than ${maxPages} pages.`);
      this.counters.rendered++;
      return { pdf: new Uint8Array(buffer.buffer, buffer.byteOffset, bytes), pages, bytes, ms: performance.now() - started, warnings };
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
        this.finish(slot, reusable);
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

  /** acquire queues for a page; cancel() leaves the queue, handing back a page that was assigned meanwhile. */
  private acquire(): { promise: Promise<Slot>; cancel: () => void } {
    let waiter!: Waiter;
    const promise = new Promise<Slot>((resolve, reject) => {
      waiter = {
        resolve: (slot) => {
          waiter.slot = slot;
          resolve(slot);
        },
        reject,
      };
    });
    promise.catch(() => {});
    this.waiters.push(waiter);
    this.dispatch();
    return {
      promise,
      cancel: () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        // Handed a page in the same turn the render was interrupted: return it unused (reset, or replaced if it died).
        if (waiter.slot) this.finish(waiter.slot, true);
      },
    };
  }

  /** dispatch hands idle pages to waiters, oldest first. */
  private dispatch(): void {
    while (this.waiters.length > 0) {
      const slot = this.slots.find((s) => s.state === "idle");
      if (!slot) return;
      slot.state = "busy";
      this.waiters.shift()!.resolve(slot);
    }
  }

  /** finish returns a page after a render: reset and reused, recycled, or replaced when its state is unknown. */
  private finish(slot: Slot, reusable: boolean): void {
    if (this.state !== "running") {
      slot.state = "down";
      return;
    }
    if (!reusable || slot.crashed) return this.replace(slot, "failed");
    if (slot.recycle || slot.renders >= slot.recycleAt) {
      this.counters.recycled++;
      return this.replace(slot, slot.recycle ? "memory" : "renders");
    }
    // A Document that fetched nothing but the last job's own scoped assets holds nothing another job can name: the
    // next job's setContent replaces its content, so the page is ready at once (emptying it cost 3-4 ms of CPU per
    // invoice and ~80 ms per 22-page report, bench/render.ts).
    if (!slot.tainted) {
      slot.state = "idle";
      return this.dispatch();
    }
    slot.state = "resetting";
    void this.reset(slot, slot.page!);
  }

  /**
   * reset readies a page for the next job. playwright's setContent is document.open/write on the same Document, and
   * that Document keeps what it fetched: the next job's <img>, stylesheet or font with the same URL is served from it
   * without a request — another job's asset, or its 404 (measured: tests "one job's assets never reach the next job").
   * A page whose last job fetched only assets of its own unguessable scope holds nothing another job can name, and is
   * reused as it is (see finish); any other request taints the Document and the page moves to a new one (about:blank,
   * ~25 ms), after the caller has its PDF.
   */
  private async reset(slot: Slot, page: Page): Promise<void> {
    try {
      for (let round = 0; round < 2; round++) {
        slot.tainted = false;
        this.counters.freshDocuments++;
        const step = page.goto("about:blank", { waitUntil: "load", timeout: 0 });
        if ((await within(step.then(() => true), this.hangTimeoutMs)) === null) {
          if (slot.page === page && slot.state === "resetting") this.replace(slot, "reset timed out");
          return;
        }
        // A request that arrived while emptying (a late load of the last job) taints the Document again.
        if (!slot.tainted) break;
      }
      if (slot.page !== page || slot.state !== "resetting") return;
      if (slot.tainted) return this.replace(slot, "requests during reset");
      slot.state = "idle";
      this.dispatch();
    } catch {
      if (slot.page === page && slot.state === "resetting") this.replace(slot, "reset failed");
    }
  }

  /** replace closes a page (its whole context) and opens a fresh one; a browser too hung to close it is killed. */
  private replace(slot: Slot, why: string): void {
    const { context, owner } = slot;
    detach(slot, "opening");
    this.log?.info({ page: slot.id, renders: slot.renders, why }, "replacing render page");
    void (async () => {
      if (context && owner?.connected) {
        const closed = await within(context.close().then(() => true), this.hangTimeoutMs).catch(() => true);
        if (closed === null) this.hung(owner, "a page did not close");
      }
      await this.open(slot);
      this.dispatch();
    })();
  }

  /** open gives a slot a new warm page in its browser; when the browser is down the restart reopens the slot. */
  private async open(slot: Slot): Promise<void> {
    const b = slot.browser;
    const owner = b.process;
    if (this.ending || !owner?.connected) {
      slot.state = "down";
      return;
    }
    slot.state = "opening";
    let context: BrowserContext | undefined;
    try {
      const opening = (async () => {
        context = await owner.browser.newContext({
          javaScriptEnabled: false,
          serviceWorkers: "block",
          // Offline is a second fence: it also stops the sockets <link rel=preconnect> opens without any request.
          offline: true,
          acceptDownloads: false,
          bypassCSP: false,
        });
        await context.route("**/*", (route) => this.route(slot, route));
        const page = await context.newPage();
        page.on("crash", () => this.crashed(slot, page));
        // The layout check measures the document as it will be printed (@media print rules included).
        await page.emulateMedia({ media: "print" });
        await page.setContent(WARM_UP_HTML, { waitUntil: "load", timeout: 0 });
        await page.pdf({ printBackground: true, tagged: false, outline: false });
        await page.setContent("", { timeout: 0 });
        return page;
      })();
      opening.catch(() => {});
      const page = await within(opening, this.hangTimeoutMs * 2);
      if (!page) throw new Error("opening a page timed out");
      if (this.ending || b.process !== owner) {
        await context?.close().catch(() => {});
        slot.state = "down";
        return;
      }
      const recycleAt = slot.generation === 0 ? slot.recycleAt : this.recycleAfter;
      Object.assign(slot, { context, page, owner, renders: 0, recycleAt, generation: slot.generation + 1, crashed: false, recycle: false, tainted: false });
      slot.state = "idle";
      this.counters.pagesOpened++;
    } catch (e) {
      void context?.close().catch(() => {});
      slot.state = "down";
      if (this.ending || b.process !== owner || !owner.connected) return;
      this.log?.warn({ page: slot.id, error: (e as Error).message.split("\n")[0] }, "could not open a render page");
      // A browser that cannot open a page may be hung: the ping decides; otherwise try again shortly.
      if (!(await owner.ping(this.hangTimeoutMs))) return this.hung(owner, "a page did not open");
      slot.retry = setTimeout(() => {
        slot.retry = undefined;
        if (slot.state === "down" && this.state === "running") void this.open(slot).then(() => this.dispatch());
      }, 1_000);
    }
  }

  /**
   * route is every request of a render page (DESIGN.md 4): asset URLs are fulfilled from the job in flight, every other
   * request is aborted — never continued. Navigations are aborted as "aborted", which leaves the document in place
   * (other reasons replace it with an error page).
   */
  private async route(slot: Slot, route: Route): Promise<void> {
    const request = route.request();
    const job = slot.job;
    const url = request.url();
    const asset = parseAssetUrl(url);
    // Only the job's own scope is served; with no scope, unscoped asset URLs are (and taint the Document).
    const served = !!job?.assets && asset !== null && asset.scope === job.assetScope && request.method() === "GET";
    if (!served || job.assetScope === undefined) slot.tainted = true;
    // Only the render in flight learns what it did not get; the warm-up and late requests of an ended render do not.
    const warn = (reason: RenderWarning["reason"]) => {
      if (job && slot.job === job) slot.warnings?.add(reason, url);
    };
    try {
      if (request.isNavigationRequest()) {
        warn("blocked");
        return await route.abort("aborted");
      }
      if (!served) {
        warn("blocked");
        return await route.abort("blockedbyclient");
      }
      let body: AssetBody | null;
      try {
        body = await job.assets!(url);
      } catch (e) {
        // The URL is logged without its scope, as warnings show it.
        this.log?.warn({ page: slot.id, url: warningFor("asset_failed", url).url, error: (e as Error).message }, "asset loader failed");
        warn("asset_failed");
        return await route.abort("failed");
      }
      // The render may have ended (deadline) while the loader ran: its assets must not reach the next job.
      if (slot.job !== job) return await route.abort("blockedbyclient");
      if (!body) {
        warn("asset_not_found");
        return await route.fulfill({ status: 404, body: "" });
      }
      await route.fulfill({
        status: 200,
        contentType: body.contentType,
        body: Buffer.from(body.body.buffer, body.body.byteOffset, body.body.byteLength),
        headers: { "cache-control": "no-store", "access-control-allow-origin": "*" },
      });
    } catch {
      // The page closed under the request: nothing to answer.
    }
  }

  /** crashed handles a renderer crash (out of memory included): fail the render in flight, or replace the idle page. */
  private crashed(slot: Slot, page: Page): void {
    if (slot.page !== page) return;
    slot.crashed = true;
    this.counters.crashes++;
    this.log?.warn({ page: slot.id, renders: slot.renders }, "render page crashed");
    if (slot.state === "busy") slot.interrupt?.(new PoolCrashError("page", "The render page crashed (out of memory?); it has been replaced."));
    else if (slot.state === "idle") this.replace(slot, "crashed");
  }

  /** launch starts one browser and watches it for a disconnect. */
  private async launch(b: BrowserSlot): Promise<BrowserProcess> {
    const p = await BrowserProcess.launch(launchOptions(this.options, (this.tempDir ??= processTempDir(this.options.tempBase))), this.clock.now());
    p.browser.on("disconnected", () => {
      if (b.process === p && this.state === "running") this.restart(b, p, "the browser disconnected");
    });
    return p;
  }

  /** hung kills a browser that stopped answering (process group and stragglers) and restarts it. */
  private hung(p: BrowserProcess, why: string): void {
    const b = this.browsers.find((candidate) => candidate.process === p);
    if (!b || this.state !== "running") return;
    this.counters.hangs++;
    this.log?.error({ pid: p.pid, why }, "browser hung: killing its process group");
    this.restart(b, p, why);
  }

  /** restart replaces a dead or hung browser: renders on it fail with PoolCrashError, its pages reopen in the new one. */
  private restart(b: BrowserSlot, dead: BrowserProcess, why: string): void {
    if (b.process !== dead) return;
    b.process = undefined;
    b.restarts++;
    this.counters.browserRestarts++;
    this.log?.warn({ pid: dead.pid, why }, "restarting browser");
    const lost = new PoolCrashError("browser", `The browser was lost during the render (${why}); it is being restarted.`);
    for (const slot of this.slots) {
      if (slot.browser !== b) continue;
      clearTimeout(slot.retry);
      if (slot.state === "busy") slot.interrupt?.(lost);
      else detach(slot, "down");
    }
    dead.kill();
    void dead.close(this.hangTimeoutMs).catch(() => {});
    b.starting = (async () => {
      for (let attempt = 0; this.state === "running"; attempt++) {
        try {
          const p = await this.launch(b);
          if (this.state !== "running") {
            await p.close(this.hangTimeoutMs);
            return;
          }
          b.process = p;
          break;
        } catch (e) {
          const wait = Math.min(MAX_LAUNCH_BACKOFF_MS, 500 * 2 ** attempt);
          this.log?.error({ error: (e as Error).message, retryInMs: wait }, "browser did not restart");
          await pause(wait, this.halt.signal);
        }
      }
      if (!b.process) return;
      this.log?.info({ pid: b.process.pid }, "browser restarted");
      await Promise.all(this.slots.filter((slot) => slot.browser === b && slot.state === "down").map((slot) => this.open(slot)));
      this.dispatch();
    })().finally(() => (b.starting = undefined));
  }

  /** check is the watchdog: ping every browser (a hung one is killed) and recycle pages over the memory budget. */
  private async check(): Promise<void> {
    if (this.checking || this.state !== "running") return;
    this.checking = true;
    try {
      await Promise.all(
        this.browsers.map(async (b) => {
          const p = b.process;
          if (!p || b.starting) return;
          if (!(await p.ping(this.hangTimeoutMs))) return this.hung(p, "no answer to a CDP call");
          this.weigh(b, p);
          // A page left down by a race with a restart (or a failed open whose retry was dropped) is opened again.
          for (const slot of this.slots)
            if (slot.browser === b && slot.state === "down" && !slot.retry) void this.open(slot).then(() => this.dispatch());
        }),
      );
    } finally {
      this.checking = false;
    }
  }

  /** weigh marks the busiest page of a browser for recycling when its renderers exceed maxPageMemoryBytes per page. */
  private weigh(b: BrowserSlot, p: BrowserProcess): void {
    const budget = this.options.maxPageMemoryBytes;
    if (!budget) return;
    const mine = this.slots.filter((slot) => slot.browser === b && !slot.recycle && (slot.state === "idle" || slot.state === "busy"));
    // A page's renderer cannot be told apart from its neighbours' in /proc, so the budget is checked per browser.
    const held = p.rendererPssBytes();
    if (mine.length === 0 || held <= budget * this.slots.filter((slot) => slot.browser === b).length) return;
    const fattest = mine.reduce((a, c) => (c.renders > a.renders ? c : a));
    this.log?.info({ page: fattest.id, rendererPssBytes: held }, "render page over the memory budget");
    if (fattest.state === "idle") {
      this.counters.recycled++;
      this.replace(fattest, "memory");
    } else fattest.recycle = true;
  }
}

/** print loads the document, checks that it can be printed whole, and prints it; the caller races it against the deadline. */
async function print(page: Page, job: RenderJob, maxPages: number): Promise<Buffer> {
  // Timeouts are the pool's (one deadline for the whole render), so playwright's own are off.
  await page.setContent(job.html, { waitUntil: "load", timeout: 0 });
  await checkLayout(page, job.html);
  return page.pdf(pdfOptions(job.pdf, maxPages));
}

/** pdfOptions maps a job's settings onto page.pdf: background on, untagged, no outline, and a page range one past the limit. */
function pdfOptions(settings: PdfSettings = {}, maxPages: number): Parameters<Page["pdf"]>[0] {
  const sized = settings.format !== undefined || settings.width !== undefined || settings.height !== undefined;
  return {
    format: settings.format ?? (sized ? undefined : "A4"),
    width: settings.width,
    height: settings.height,
    landscape: settings.landscape,
    margin: settings.margin,
    preferCSSPageSize: settings.preferCSSPageSize,
    scale: settings.scale,
    displayHeaderFooter: settings.displayHeaderFooter,
    headerTemplate: settings.headerTemplate,
    footerTemplate: settings.footerTemplate,
    printBackground: settings.printBackground ?? true,
    tagged: settings.tagged ?? false,
    outline: false,
    pageRanges: `1-${maxPages + 1}`,
  };
}

/** blockedError is the failure of a render with failOnBlockedResources, naming the first thing it did not get. */
function blockedError(first: RenderWarning): ApiError {
  const why = {
    blocked: "renders load nothing but the workspace's own assets",
    asset_not_found: "no such uploaded asset",
    asset_failed: "the asset could not be read",
  }[first.reason];
  return new ApiError(
    "RENDER_FAILED",
    `The page asked for ${first.url} and did not get it (${why}); failOnBlockedResources is true. ` +
      "Upload what it needs as an asset, inline it as a data: URL, or render without failOnBlockedResources to get warnings instead.",
  );
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

/** detach forgets a slot's page (whoever holds the old context closes it) and sets its state. */
function detach(slot: Slot, state: SlotState): void {
  slot.state = state;
  slot.context = undefined;
  slot.page = undefined;
  slot.owner = undefined;
  slot.job = undefined;
  slot.crashed = false;
  slot.recycle = false;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("The render was aborted.", "AbortError");
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
