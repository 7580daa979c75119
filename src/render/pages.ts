/**
 * pages: the pool's warm pages — check a page out for a render (waiters first come, first served), take it back
 * (reset, or reused as it is), and replace it when it crashed, failed, or is due for recycling after N renders or
 * over the memory budget. The browsers they live in are the supervisor's. See docs/pool.md.
 */
import type { BrowserContext, Page } from "playwright-core";
import type { BrowserProcess } from "./browser";
import { muteLifecycle } from "./cdp";
import { guardedContext, type GuardedPage } from "./guard";
import { blank, print } from "./print";
import { PoolCrashError, type BrowserSlot, type BrowserSupervisor, type PoolLog, type PoolState } from "./supervisor";
import { within } from "./timeout";

/** SlotState is where a page place is: opening a page, ready, printing, being reset, or without a page. */
export type SlotState = "opening" | "idle" | "busy" | "resetting" | "down";

/** Slot is one place for a warm page; its page is replaced, the slot stays. */
export interface Slot extends GuardedPage {
  browser: BrowserSlot;
  state: SlotState;
  /** The browser the current page lives in: a late failure of an old page must not blame its successor's browser. */
  owner?: BrowserProcess;
  context?: BrowserContext;
  page?: Page;
  /** Renders on the current page. */
  renders: number;
  /** Renders on the page's current Document (see DOCUMENT_RENDERS). */
  documentRenders: number;
  /** Renders after which the current page is replaced: recycleAfter, less for the first pages (staggered). */
  recycleAt: number;
  /** Pages this slot has had. */
  generation: number;
  /** Fails the render in flight on this slot. */
  interrupt?: (error: Error) => void;
  crashed: boolean;
  recycle: boolean;
  retry?: ReturnType<typeof setTimeout>;
}

interface Waiter {
  resolve: (slot: Slot) => void;
  reject: (error: Error) => void;
  slot?: Slot;
}

/** PageOptions are the pool settings the pages need. */
export interface PageOptions {
  size: number;
  recycleAfter: number;
  maxPageMemoryBytes?: number;
  hangTimeoutMs: number;
  log?: PoolLog;
}

const WARM_UP_HTML = "<!DOCTYPE html><html><body><p>warm</p></body></html>";

/**
 * DOCUMENT_RENDERS is how many jobs one Document takes before the page moves to a new one. A job's content replaces
 * the last one's (document.open/write), but a Document keeps every Content-Security-Policy a `<meta>` gave it — each
 * compiled document carries one — and Chromium's browser process does work per kept policy on every load: its CPU
 * per invoice grew from 6.8 to 14.2 ms over 2,500 invoices on two pages never recycled (bench/pool-memory.ts); the
 * pool alone grew the same way with that one meta (8.2 to 13.5 ms over 2,000) and stayed flat without it. A new
 * Document costs ~25 ms; every 100 renders it is a fraction of a millisecond per render, and the growth stays under
 * one (docs/performance.md "Fourth pass").
 */
const DOCUMENT_RENDERS = 100;

/** PageSlots checks warm pages out to renders and takes them back. */
export class PageSlots {
  readonly slots: Slot[] = [];
  private readonly waiters: Waiter[] = [];
  readonly counters = { crashes: 0, recycled: 0, pagesOpened: 0, freshDocuments: 0 };

  constructor(
    private readonly options: PageOptions,
    private readonly supervisor: BrowserSupervisor,
    private readonly state: () => PoolState,
  ) {}

  /** place makes `size` empty slots spread over the supervisor's browser slots. */
  place(): void {
    const { size, recycleAfter } = this.options;
    const browsers = this.supervisor.browsers;
    this.slots.length = 0;
    for (let id = 0; id < size; id++) {
      // The first pages recycle at staggered counts, so that under an even load they are not all replaced at once.
      const recycleAt = recycleAfter - Math.floor((id * recycleAfter) / size);
      this.slots.push({ id, browser: browsers[id % browsers.length], state: "down", renders: 0, documentRenders: 0, recycleAt, generation: 0, crashed: false, recycle: false, tainted: false });
    }
  }

  /** openAll opens a warm page in every slot. */
  async openAll(): Promise<void> {
    await Promise.all(this.slots.map((slot) => this.open(slot)));
  }

  /** count answers how many slots are in `state`. */
  count(state: SlotState): number {
    return this.slots.filter((slot) => slot.state === state).length;
  }

  /** waiting answers how many renders wait for a page. */
  waiting(): number {
    return this.waiters.length;
  }

  /** interruptAll fails every waiting and in-flight render with `error` (the pool is stopping). */
  interruptAll(error: Error): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
    for (const slot of this.slots) {
      clearTimeout(slot.retry);
      slot.interrupt?.(error);
    }
  }

  /** detachAll forgets every page: their browsers have been closed. */
  detachAll(): void {
    for (const slot of this.slots) detach(slot, "down");
  }

  /** lost handles a browser that is gone: renders on it fail with `error`, its other pages go down until it is back. */
  lost(b: BrowserSlot, error: PoolCrashError): void {
    for (const slot of this.slots) {
      if (slot.browser !== b) continue;
      clearTimeout(slot.retry);
      if (slot.state === "busy") slot.interrupt?.(error);
      else detach(slot, "down");
    }
  }

  /** back reopens the pages of a restarted browser. */
  async back(b: BrowserSlot): Promise<void> {
    await Promise.all(this.slots.filter((slot) => slot.browser === b && slot.state === "down").map((slot) => this.open(slot)));
    this.dispatch();
  }

  /** checked is the watchdog's turn for a browser that answered: weigh it, and open pages left down. */
  checked(b: BrowserSlot, p: BrowserProcess): void {
    this.weigh(b, p);
    // A page left down by a race with a restart (or a failed open whose retry was dropped) is opened again.
    for (const slot of this.slots) if (slot.browser === b && slot.state === "down" && !slot.retry) void this.open(slot).then(() => this.dispatch());
  }

  /** acquire queues for a page; cancel() leaves the queue, handing back a page that was assigned meanwhile. */
  acquire(): { promise: Promise<Slot>; cancel: () => void } {
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

  /** finish returns a page after a render: reset and reused, recycled, or replaced when its state is unknown. */
  finish(slot: Slot, reusable: boolean): void {
    if (this.state() !== "running") {
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
    // invoice and ~80 ms per 22-page report, bench/render.ts) — until it took DOCUMENT_RENDERS jobs.
    if (!slot.tainted && slot.documentRenders < DOCUMENT_RENDERS) {
      slot.state = "idle";
      return this.dispatch();
    }
    slot.state = "resetting";
    void this.reset(slot, slot.page!);
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

  /** ending answers whether the pool's stop has begun (a call, so TypeScript does not narrow it across awaits). */
  private ending(): boolean {
    const state = this.state();
    return state === "stopping" || state === "stopped";
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
        const step = blank(page);
        if ((await within(step.then(() => true), this.options.hangTimeoutMs)) === null) {
          if (slot.page === page && slot.state === "resetting") this.replace(slot, "reset timed out");
          return;
        }
        slot.documentRenders = 0;
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
    this.options.log?.info({ page: slot.id, renders: slot.renders, why }, "replacing render page");
    void (async () => {
      if (context && owner?.connected) {
        const closed = await within(context.close().then(() => true), this.options.hangTimeoutMs).catch(() => true);
        if (closed === null) this.supervisor.hung(owner, "a page did not close");
      }
      await this.open(slot);
      this.dispatch();
    })();
  }

  /** open gives a slot a new warm page in its browser; when the browser is down the restart reopens the slot. */
  private async open(slot: Slot): Promise<void> {
    const { hangTimeoutMs, log } = this.options;
    const b = slot.browser;
    const owner = b.process;
    if (this.ending() || !owner?.connected) {
      slot.state = "down";
      return;
    }
    slot.state = "opening";
    let context: BrowserContext | undefined;
    try {
      const opening = (async () => {
        context = await guardedContext(owner.browser, slot, log);
        const page = await context.newPage();
        page.on("crash", () => this.crashed(slot, page));
        await muteLifecycle(page);
        // The layout check measures the document as it will be printed (@media print rules included).
        await page.emulateMedia({ media: "print" });
        // A first print through the render's own path: the page's session and frame are looked up here, not in a render.
        await print(page, { html: WARM_UP_HTML }, 1);
        await blank(page);
        return page;
      })();
      opening.catch(() => {});
      const page = await within(opening, hangTimeoutMs * 2);
      if (!page) throw new Error("opening a page timed out");
      if (this.ending() || b.process !== owner) {
        await context?.close().catch(() => {});
        slot.state = "down";
        return;
      }
      const recycleAt = slot.generation === 0 ? slot.recycleAt : this.options.recycleAfter;
      Object.assign(slot, { context, page, owner, renders: 0, documentRenders: 0, recycleAt, generation: slot.generation + 1, crashed: false, recycle: false, tainted: false });
      slot.state = "idle";
      this.counters.pagesOpened++;
    } catch (e) {
      void context?.close().catch(() => {});
      slot.state = "down";
      if (this.ending() || b.process !== owner || !owner.connected) return;
      log?.warn({ page: slot.id, error: (e as Error).message.split("\n")[0] }, "could not open a render page");
      // A browser that cannot open a page may be hung: the ping decides; otherwise try again shortly.
      if (!(await owner.ping(hangTimeoutMs))) return this.supervisor.hung(owner, "a page did not open");
      slot.retry = setTimeout(() => {
        slot.retry = undefined;
        if (slot.state === "down" && this.state() === "running") void this.open(slot).then(() => this.dispatch());
      }, 1_000);
    }
  }

  /** crashed handles a renderer crash (out of memory included): fail the render in flight, or replace the idle page. */
  private crashed(slot: Slot, page: Page): void {
    if (slot.page !== page) return;
    slot.crashed = true;
    this.counters.crashes++;
    this.options.log?.warn({ page: slot.id, renders: slot.renders }, "render page crashed");
    if (slot.state === "busy") slot.interrupt?.(new PoolCrashError("page", "The render page crashed (out of memory?); it has been replaced."));
    else if (slot.state === "idle") this.replace(slot, "crashed");
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
    this.options.log?.info({ page: fattest.id, rendererPssBytes: held }, "render page over the memory budget");
    if (fattest.state === "idle") {
      this.counters.recycled++;
      this.replace(fattest, "memory");
    } else fattest.recycle = true;
  }
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
