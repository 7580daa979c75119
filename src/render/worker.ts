/**
 * worker: runs the render queue (queue/queue.ts) on the Chromium pool. It claims the fair pick whenever a page is free,
 * prints it, stores the PDF and ends the render through the queue.
 * A render lost to a crashed page or browser is printed once more on the replacement; a render interrupted by stop()
 * goes back to the queue, so a restart loses none.
 */
import type { Logger } from "pino";
import { ApiError } from "../errors";
import { sweepIdempotencyKeys } from "../http/idempotency";
import { Backoff } from "../lib/backoff";
import type { Clock } from "../lib/clock";
import type { Metrics } from "../metrics/metrics";
import type { Claim, Queue, RenderRow } from "../queue/queue";
import { uploadedAsset } from "../store/assets";
import type { FileStore } from "../store/files";
import { storageFailure } from "../store/space";
import type { Store } from "../store/store";
import { FINAL_STATUSES, type FinalStatus } from "../store/render-status";
import type { PrintJob } from "./job";
import { parseAssetUrl } from "./assets";
import type { FinishDeps } from "./finish";
import { isOperationJob, type OperationJob } from "./operation";
import { operate, printJob, type ProduceDeps, type SealPdf } from "./produce";
import { storeOutputs, type StoreOutputDeps } from "./store-output";
import { recordOutputs } from "../store/render-outputs";
import { GroupCommit } from "./group-commit";
import { PoolCrashError, type AssetBody, type AssetLoader, type RenderOutput, type RenderPool } from "./pool";

export interface WorkerOptions {
  store: Store;
  clock: Clock;
  log: Logger;
  files: FileStore;
  pool: RenderPool;
  /** Renders printed at once: the pool's pages (RENDER_WORKERS). */
  concurrency: number;
  retentionDays: number;
  /** Counts each render that ends here and its times (docs/operations.md). */
  metrics?: Metrics;
  /** The render queue (queue/queue.ts): the worker claims, renews, ends and requeues through it alone. */
  queue: Queue;
  /** Seals the finished PDF (encryption, then the signature: issue 13); a throw fails the render, so nothing half-done is kept. */
  sealPdf?: SealPdf;
}

// A safety net only: every change that can let a render start (a new render, a free page) kicks the worker at once;
// the poll catches what no kick announces, such as a workspace whose suspension was lifted by the CLI.
const POLL_MS = 1_000;
const SWEEP_EVERY_MS = 60 * 60_000;
// How often a `?wait` on a shared store asks whether another process ended the render: the most a client waits past the end.
const SHARED_WAIT_POLL_MS = 100;

/** The abort reasons the worker tells apart: the render was cancelled, the process is stopping, or its lease was lost. */
class Cancelled extends Error {}
class Stopping extends Error {}
/** The lease ran out and the render went back to the queue: another process prints it, this one writes nothing. */
class LeaseLost extends Error {}

interface Running {
  workspaceId: string;
  startedAt: Date;
  controller: AbortController;
  done: Promise<void>;
}

/** A render claimed for a free page, counted as running before it starts. */
type Claimed = { claim: Claim; running: Running };

/** RenderWorker owns the queue of one renderd process. */
export class RenderWorker {
  private readonly running = new Map<string, Running>();
  private readonly waiters = new Map<string, Set<(row?: RenderRow) => void>>();
  /** Ends renders that finish together in one transaction, which claims the next ones for the pages they free. */
  private readonly ends: GroupCommit<Claimed[]>;
  /** The queue this worker takes renders from (read for its depth by /metrics). */
  readonly queue: Queue;
  private kicked = false;
  private stopped = true;
  /** Whether renders left processing by a dead process were taken back: claims wait for it (a full disk can delay it). */
  private recovered = false;
  /** Renders whose end could not be written (DATA_DIR full, the store away): put back in the queue once it takes writes. */
  private readonly unwritten = new Set<string>();
  /** The store's failures as the worker meets them: logged once per outage, claims retried with back-off (issue 26). */
  private readonly faults: Backoff;
  private poller?: ReturnType<typeof setInterval>;
  private sweeper?: ReturnType<typeof setInterval>;
  private renewer?: ReturnType<typeof setInterval>;
  private sharedPoll?: ReturnType<typeof setInterval>;

  constructor(private readonly options: WorkerOptions) {
    this.queue = options.queue;
    this.faults = new Backoff(options.log, "claiming or ending renders");
    this.ends = new GroupCommit(
      options.store,
      (ending) => this.claimFree(ending),
      (claimed) => claimed.forEach(({ claim }) => this.running.delete(claim.renderId)),
      (claimed) => this.startAll(claimed),
    );
  }

  /** start requeues what a dead process left processing, sweeps old renders (and expired idempotency keys) and
   * begins taking renders. */
  start(): void {
    this.stopped = false;
    this.recover();
    this.sweep();
    this.poller = setInterval(() => {
      this.guarded(() => this.stopCancelledElsewhere());
      this.kick();
    }, POLL_MS);
    this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    // A third of the lease: two renewals may be missed (a stalled event loop) before another process takes a render.
    this.renewer = setInterval(() => this.renew(), this.queue.leaseMs / 3);
    this.kick();
  }

  /** stop takes no more renders, lets those printing finish for up to `graceMs` and puts the rest back in the queue; it
   * resolves once none is printing, and lets every request waiting on a render answer with the render as it is. */
  async stop(graceMs = 0): Promise<void> {
    this.stopped = true;
    clearInterval(this.poller);
    clearInterval(this.sweeper);
    clearInterval(this.renewer);
    if (graceMs > 0 && this.running.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.all([...this.running.values()].map((r) => r.done)), grace]);
      clearTimeout(timer);
    }
    for (const r of this.running.values()) r.controller.abort(new Stopping("renderd is stopping"));
    await Promise.all([...this.running.values()].map((r) => r.done));
    for (const id of [...this.waiters.keys()]) this.ended(id);
    clearInterval(this.sharedPoll);
    this.sharedPoll = undefined;
  }

  /** kick looks for renders to start, soon (after the transaction that queued them has committed). */
  kick(): void {
    if (this.kicked || this.stopped) return;
    this.kicked = true;
    queueMicrotask(() => {
      this.kicked = false;
      this.fill();
    });
  }

  /** cancel stops printing a render whose final state `cancelled` has just been written. */
  cancel(renderId: string): void {
    this.running.get(renderId)?.controller.abort(new Cancelled("cancelled"));
  }

  /** inFlight answers the renders being printed now, oldest first (for the operator's /internal/state). */
  inFlight(): { renderId: string; workspaceId: string; startedAt: Date }[] {
    return [...this.running].map(([renderId, r]) => ({ renderId, workspaceId: r.workspaceId, startedAt: r.startedAt }));
  }

  /** ended tells whoever waits on a render (`?wait`) that it reached a final state, handing over `row` when it is the
   * one just written. */
  ended(renderId: string, row?: RenderRow): void {
    const set = this.waiters.get(renderId);
    this.waiters.delete(renderId);
    for (const fn of set ?? []) fn(row);
  }

  /** waitEnded resolves when `isFinal()` holds — checked at once and again whenever the render ends — or after `ms`;
   * with the render's final row when this worker ended it (written and committed), so the answer needs no read back. */
  waitEnded(renderId: string, ms: number, isFinal: () => boolean): Promise<RenderRow | undefined> {
    return new Promise((resolve) => {
      let set = this.waiters.get(renderId);
      if (!set) this.waiters.set(renderId, (set = new Set()));
      const done = (row?: RenderRow) => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(renderId) === set) this.waiters.delete(renderId);
        resolve(row);
      };
      const timer = setTimeout(() => done(), ms);
      set.add(done);
      if (isFinal()) done();
      else if (this.options.store.engine !== "sqlite") this.watchOtherProcesses();
    });
  }

  /** watchOtherProcesses asks the store, every SHARED_WAIT_POLL_MS while requests wait, which of the renders they wait on
   * another process ended: on a shared store that end reaches this process only through the store. One query for all
   * the waiting requests. */
  private watchOtherProcesses(): void {
    if (this.sharedPoll) return;
    this.sharedPoll = setInterval(() => {
      const waited = [...this.waiters.keys()];
      if (waited.length === 0) {
        clearInterval(this.sharedPoll);
        this.sharedPoll = undefined;
        return;
      }
      this.guarded(() => this.queue.inStatusAmong(waited, FINAL_STATUSES).forEach((id) => this.ended(id)));
    }, SHARED_WAIT_POLL_MS);
  }

  private fill(): void {
    if (!this.faults.ready() || !this.recover()) return;
    const putBack = this.guarded(() => {
      for (const id of this.unwritten) {
        this.queue.requeue(id);
        this.unwritten.delete(id);
      }
    });
    if (putBack) this.startAll(this.claimFree());
  }

  /** guarded runs one step of a loop on the store: a failure is the back-off's to log and wait out; false when it failed. */
  private guarded(step: () => void): boolean {
    try {
      step();
      return true;
    } catch (e) {
      this.faults.failed(e);
      return false;
    }
  }

  /** recover takes back what a dead process left processing, once; false while the store cannot take that write. */
  private recover(): boolean {
    return (this.recovered ||= this.guarded(() => {
      const recovered = this.queue.recover();
      if (recovered.requeued || recovered.failed) this.options.log.warn(recovered, "renders left processing by a previous process");
    }));
  }

  /** putBack returns a render whose end could not be written to the queue, or keeps it for fill to try again. */
  private putBack(renderId: string): void {
    if (!this.guarded(() => this.queue.requeue(renderId))) this.unwritten.add(renderId);
  }

  /** claimFree claims a render for every free page — with `freeing` more pages whose renders are ending — and counts
   * each as running at once. */
  private claimFree(freeing = 0): Claimed[] {
    const { clock, concurrency } = this.options;
    const claimed: Claimed[] = [];
    while (!this.stopped && this.faults.ready() && this.running.size - freeing < concurrency) {
      let claim: Claim | null;
      try {
        claim = this.queue.claim();
      } catch (e) {
        // What was claimed so far stays claimed; the rest waits for the back-off.
        this.faults.failed(e);
        break;
      }
      if (!claim) break;
      const running: Running = { workspaceId: claim.workspaceId, startedAt: clock.now(), controller: new AbortController(), done: Promise.resolve() };
      this.running.set(claim.renderId, running);
      claimed.push({ claim, running });
    }
    return claimed;
  }

  private startAll(claimed: Claimed[]): void {
    for (const { claim, running } of claimed)
      running.done = this.run(claim, JSON.parse(claim.job) as PrintJob | OperationJob, running.controller.signal).catch((err) => {
        // The end could not be written (the store refused or did not answer): the render goes back to the queue, to be
        // printed again once the store takes writes. Left unhandled, the rejection would end the process.
        this.faults.failed(err);
        this.putBack(claim.renderId);
      });
  }

  private async run(head: Claim, job: PrintJob | OperationJob, signal: AbortSignal): Promise<void> {
    const { log } = this.options;
    const id = head.renderId;
    const started = performance.now();
    const ended = (status: FinalStatus) => this.counted(head, status, (performance.now() - started) / 1000);
    let final: RenderRow | null = null;
    try {
      const made = isOperationJob(job) ? await operate(this.producing, head.workspaceId, job) : await printJob(this.producing, head.workspaceId, job, signal);
      const [pdf, pages] = [made.pdfs[0]!, made.pages[0]!];
      final = await storeOutputs(this.storing, id, made.pdfs, (shas) => {
        const row = this.queue.complete(id, { outputSha256: shas[0]!, pages, bytes: pdf.length, warnings: made.warnings });
        if (row && isOperationJob(job)) recordOutputs(this.options.store, id, shas.map((sha256, i) => ({ sha256, pages: made.pages[i]!, bytes: made.pdfs[i]!.length })), made.details);
        return row;
      });
      ended(final ? "succeeded" : "cancelled");
      const fields = { renderId: id, workspaceId: head.workspaceId, pages, bytes: pdf.length, warnings: made.warnings.length, ms: Math.round(made.ms) };
      log.info(fields, "render succeeded");
    } catch (e) {
      if (signal.reason instanceof Stopping) return this.queue.requeue(id);
      if (signal.reason instanceof LeaseLost) return;
      // Cancelled: the cancel request wrote the final state already.
      if (signal.reason instanceof Cancelled) return ended("cancelled");
      // DATA_DIR full or read-only: the render is not at fault; startAll puts it back in the queue (issue 26).
      if (storageFailure(e)) throw e;
      const error = e instanceof ApiError ? e : new ApiError("RENDER_FAILED", "The render failed.");
      if (!(e instanceof ApiError)) log.error({ err: e, renderId: id }, "render failed unexpectedly");
      else log.info({ renderId: id, workspaceId: head.workspaceId, code: error.code }, "render failed");
      final = this.queue.fail(id, error.code, error.message);
      if (final) ended("failed");
    } finally {
      // An end written is the worker's sign that the store takes its writes again (a claim alone may fit in the WAL).
      if (final) this.faults.succeeded();
      this.running.delete(id);
      this.ended(id, final ?? undefined);
      this.kick();
    }
  }

  /** counted tells the metrics that a render this worker took has ended: its wait in the queue and its print time. */
  private counted(head: Claim, status: FinalStatus, renderSeconds: number): void {
    const startedAt = this.running.get(head.renderId)?.startedAt;
    const queueSeconds = startedAt ? (startedAt.getTime() - Date.parse(head.createdAt)) / 1000 : undefined;
    this.options.metrics?.renderEnded({ status, test: head.test, queueSeconds, renderSeconds });
  }

  /** renew extends the leases of the renders printing here and stops printing those this process no longer holds. */
  private renew(): void {
    this.guarded(() => {
      // A render cancelled elsewhere is no longer held either: it stops as cancelled, not as lost.
      this.stopCancelledElsewhere();
      for (const id of this.queue.renew([...this.running.keys()])) this.running.get(id)?.controller.abort(new LeaseLost("lease lost"));
    });
  }

  /** stopCancelledElsewhere stops printing renders another process (`renderd tui`) cancelled in the store. */
  private stopCancelledElsewhere(): void {
    for (const id of this.queue.inStatusAmong([...this.running.keys()], ["cancelled"])) this.cancel(id);
  }

  /** print prints on the pool, and once more when a crash lost the render (the pool has replaced what crashed). */
  private async print(workspaceId: string, job: PrintJob, signal: AbortSignal): Promise<RenderOutput> {
    const renderJob = { ...job, assets: this.assets(workspaceId) };
    try {
      return await this.options.pool.render(renderJob, signal);
    } catch (e) {
      if (!(e instanceof PoolCrashError) || signal.aborted) throw e;
      this.options.log.warn({ kind: e.kind }, "render lost to a crash; printing it once more");
      return await this.options.pool.render(renderJob, signal);
    }
  }

  /** assets serves a page the uploaded assets of the render's own workspace, nothing else. */
  private assets(workspaceId: string): AssetLoader {
    return async (url) => {
      const named = parseAssetUrl(url);
      return named ? this.asset(workspaceId, named.assetId) : null;
    };
  }

  /** producing is what printing a job or running an operation needs (produce.ts). */
  private get producing(): ProduceDeps {
    const { store, clock, files, pool, sealPdf } = this.options;
    return {
      print: (workspaceId, job, signal) => this.print(workspaceId, job, signal),
      finishing: (workspaceId) => this.finishing(workspaceId),
      sealPdf,
      operation: { read: (area, sha256) => files.read(area, sha256), maxPages: pool.maxPages, maxOutputBytes: pool.maxOutputBytes },
      images: { store, clock, files },
    };
  }

  /** storing is what storing the PDFs needs: the group commit ends them with others ending at once. */
  private get storing(): StoreOutputDeps {
    const { store, clock, files, log } = this.options;
    return { store, clock, files, log, write: (end) => this.ends.write(end) };
  }

  /** finishing is what finish.ts needs: the workspace's assets (the attached and embedded PDFs) and the pool's limits. */
  private finishing(workspaceId: string): FinishDeps {
    const { pool } = this.options;
    return { asset: (id) => this.asset(workspaceId, id), maxPages: pool.maxPages, maxOutputBytes: pool.maxOutputBytes };
  }

  /** asset answers an uploaded asset of the workspace, or null. */
  private async asset(workspaceId: string, assetId: string): Promise<AssetBody | null> {
    const { store, files } = this.options;
    const asset = uploadedAsset(store, workspaceId, assetId);
    if (!asset) return null;
    const body = await files.read("assets", asset.sha256);
    return body ? { body, contentType: asset.mediaType } : null;
  }

  private async sweep(): Promise<void> {
    const { store, clock, log, retentionDays } = this.options;
    try {
      const swept = this.queue.sweep(retentionDays);
      if (swept.renders) log.info(swept, "old renders deleted");
      const keys = sweepIdempotencyKeys({ store, clock });
      if (keys) log.info({ idempotencyKeys: keys }, "expired idempotency keys deleted");
    } catch (e) {
      log.error({ err: e }, "render retention sweep failed");
    }
  }
}
