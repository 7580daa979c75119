/**
 * worker: runs the render queue (queue/queue.ts) on the Chromium pool. It claims the fair pick whenever a page is free,
 * prints it, stores the PDF and ends the render through the queue.
 * A render lost to a crashed page or browser is printed once more on the replacement; a render interrupted by stop()
 * goes back to the queue, so a restart loses none.
 */
import type { Logger } from "pino";
import { ApiError } from "../errors";
import { sweepIdempotencyKeys } from "../http/idempotency";
import type { Clock } from "../lib/clock";
import { sha256Hex } from "../lib/hash";
import type { Metrics } from "../metrics/metrics";
import type { Claim, Queue, RenderRow } from "../queue/queue";
import { uploadedAsset } from "../store/assets";
import { awaitFileHold, releaseFile } from "../store/file-deletions";
import type { FileStore } from "../store/files";
import type { Store, Tx } from "../store/store";
import { FINAL_STATUSES, type FinalStatus } from "../store/render-status";
import type { PrintJob } from "./job";
import { parseAssetUrl } from "./assets";
import { finishPdf, type FinishDeps } from "./finish";
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

/** SealPdf answers the PDF to store for a render of `workspaceId` from `job`, once finish.ts is done with it. */
export type SealPdf = (workspaceId: string, job: PrintJob, pdf: Uint8Array) => Promise<Uint8Array>;

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
  private filling: Promise<void> | null = null;
  private refill = false;
  /** Claims asked for and not answered yet: each holds a page, so that claims made at once never exceed the pages. */
  private claiming = 0;
  private stopped = true;
  private unlisten?: () => void;
  private poller?: ReturnType<typeof setInterval>;
  private sweeper?: ReturnType<typeof setInterval>;
  private renewer?: ReturnType<typeof setInterval>;
  private sharedPoll?: ReturnType<typeof setInterval>;

  constructor(private readonly options: WorkerOptions) {
    this.queue = options.queue;
    this.ends = new GroupCommit(
      options.store,
      (tx, ending) => this.claimFree(ending, tx),
      (claimed) => claimed.forEach(({ claim }) => this.running.delete(claim.renderId)),
      (claimed) => this.startAll(claimed),
    );
  }

  /** start requeues what a dead process left processing, sweeps old renders (and expired idempotency keys) and
   * begins taking renders: at once when a render is queued (in this process or another, Store.listen), and on a slow
   * poll as the safety net. */
  async start(): Promise<void> {
    const { log, store } = this.options;
    const recovered = await this.queue.recover();
    if (recovered.requeued || recovered.failed) log.warn(recovered, "renders left processing by a previous process");
    this.stopped = false;
    void this.sweep();
    this.unlisten = store.listen("renders", () => this.kick());
    this.poller = setInterval(() => {
      void this.stopCancelledElsewhere();
      this.kick();
    }, POLL_MS);
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_EVERY_MS);
    // A third of the lease: two renewals may be missed (a stalled event loop) before another process takes a render.
    this.renewer = setInterval(() => void this.renew(), this.queue.leaseMs / 3);
    this.kick();
  }

  /** stop takes no more renders, lets those printing finish for up to `graceMs` and puts the rest back in the queue; it
   * resolves once none is printing, and lets every request waiting on a render answer with the render as it is. */
  async stop(graceMs = 0): Promise<void> {
    this.stopped = true;
    this.unlisten?.();
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

  /** kick looks for renders to start for the free pages; a kick while it looks makes it look once more after. */
  kick(): void {
    if (this.stopped) return;
    if (this.filling) {
      this.refill = true;
      return;
    }
    this.filling = (async () => {
      do {
        this.refill = false;
        this.startAll(await this.claimFree());
      } while (this.refill && !this.stopped);
    })().finally(() => (this.filling = null));
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
  waitEnded(renderId: string, ms: number, isFinal: () => Promise<boolean>): Promise<RenderRow | undefined> {
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
      isFinal().then(
        (final) => {
          if (final) done();
          else if (this.options.store.engine !== "sqlite") this.watchOtherProcesses();
        },
        // The store did not answer: the wait goes on, and ends with the render or the time.
        () => {},
      );
    });
  }

  /** watchOtherProcesses asks the store, every SHARED_WAIT_POLL_MS while requests wait, which of the renders they wait on
   * another process ended: on a shared store that end reaches this process only through the store. One query for all
   * the waiting requests. */
  private watchOtherProcesses(): void {
    if (this.sharedPoll) return;
    let asking = false;
    this.sharedPoll = setInterval(async () => {
      const waited = [...this.waiters.keys()];
      if (waited.length === 0) {
        clearInterval(this.sharedPoll);
        this.sharedPoll = undefined;
        return;
      }
      // One question at a time: a slow store makes the polls wait, not pile up.
      if (asking) return;
      asking = true;
      try {
        for (const id of await this.queue.inStatusAmong(waited, FINAL_STATUSES)) this.ended(id);
      } catch {
        // Asked again at the next poll.
      } finally {
        asking = false;
      }
    }, SHARED_WAIT_POLL_MS);
  }

  /** claimFree claims a render for every free page — with `freeing` more pages whose renders are ending, in `tx` when
   * given — and counts each as running at once. A claim that fails ends the round: the next kick or poll tries again. */
  private async claimFree(freeing = 0, tx?: Tx): Promise<Claimed[]> {
    const { clock, concurrency, log } = this.options;
    const claimed: Claimed[] = [];
    while (!this.stopped && this.running.size + this.claiming - freeing < concurrency) {
      let claim: Claim | null;
      this.claiming += 1;
      try {
        claim = await this.queue.claim(tx);
      } catch (err) {
        log.error({ err }, "claiming a render failed; the next poll tries again");
        break;
      } finally {
        this.claiming -= 1;
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
      running.done = this.run(claim, JSON.parse(claim.job) as PrintJob, running.controller.signal).catch((err) =>
        // The end could not be written (the store refused or did not answer): the render stays processing, and is taken
        // back by another process when its lease runs out, or at the next start (DESIGN.md 4). Left unhandled, the
        // rejection would end the process and every render in it.
        this.options.log.error({ err, renderId: claim.renderId }, "writing the end of a render failed; it is taken back after its lease or at the next start"),
      );
  }

  private async run(head: Claim, job: PrintJob, signal: AbortSignal): Promise<void> {
    const { log } = this.options;
    const id = head.renderId;
    const started = performance.now();
    const ended = (status: FinalStatus) => this.counted(head, status, (performance.now() - started) / 1000);
    let final: RenderRow | null = null;
    // Once the PDF is made, a failure is the store's (or the bucket's), not the render's: it is not failed for it, but
    // left to its lease (startAll logs it), and printed again by whichever process takes it back.
    let storing = false;
    try {
      const printed = await this.print(head.workspaceId, job, signal);
      const out = { ...printed, ...(await finishPdf(printed, job.finish, this.finishing(head.workspaceId))) };
      const pdf = this.options.sealPdf ? await this.options.sealPdf(head.workspaceId, job, out.pdf) : out.pdf;
      storing = true;
      final = await this.storeOutput(id, pdf, (tx, sha256) =>
        this.queue.complete(tx, id, { outputSha256: sha256, pages: out.pages, bytes: pdf.length, warnings: out.warnings }),
      );
      ended(final ? "succeeded" : "cancelled");
      const fields = { renderId: id, workspaceId: head.workspaceId, pages: out.pages, bytes: pdf.length, warnings: out.warnings.length, ms: Math.round(out.ms) };
      log.info(fields, "render succeeded");
    } catch (e) {
      if (signal.reason instanceof Stopping) return await this.queue.requeue(id);
      if (signal.reason instanceof LeaseLost) return;
      // Cancelled: the cancel request wrote the final state already.
      if (signal.reason instanceof Cancelled) return ended("cancelled");
      if (storing) throw e;
      const error = e instanceof ApiError ? e : new ApiError("RENDER_FAILED", "The render failed.");
      if (!(e instanceof ApiError)) log.error({ err: e, renderId: id }, "render failed unexpectedly");
      else log.info({ renderId: id, workspaceId: head.workspaceId, code: error.code }, "render failed");
      final = await this.queue.fail(id, error.code, error.message);
      if (final) ended("failed");
    } finally {
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
  private async renew(): Promise<void> {
    try {
      // A render cancelled elsewhere is no longer held either: it stops as cancelled, not as lost.
      await this.stopCancelledElsewhere();
      for (const id of await this.queue.renew([...this.running.keys()])) this.running.get(id)?.controller.abort(new LeaseLost("lease lost"));
    } catch (e) {
      this.options.log.error({ err: e }, "renewing render leases failed");
    }
  }

  /** stopCancelledElsewhere stops printing renders another process (`renderd tui`) cancelled in the store. */
  private async stopCancelledElsewhere(): Promise<void> {
    try {
      for (const id of await this.queue.inStatusAmong([...this.running.keys()], ["cancelled"])) this.cancel(id);
    } catch (err) {
      this.options.log.error({ err }, "reading the renders cancelled elsewhere failed");
    }
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

  /** finishing is what finish.ts needs: the workspace's assets (the attached and embedded PDFs) and the pool's limits. */
  private finishing(workspaceId: string): FinishDeps {
    const { pool } = this.options;
    return { asset: (id) => this.asset(workspaceId, id), maxPages: pool.maxPages, maxOutputBytes: pool.maxOutputBytes };
  }

  /** asset answers an uploaded asset of the workspace, or null. */
  private async asset(workspaceId: string, assetId: string): Promise<AssetBody | null> {
    const { store, files } = this.options;
    const asset = await uploadedAsset(store, workspaceId, assetId);
    if (!asset) return null;
    const body = await files.read("assets", asset.sha256);
    return body ? { body, contentType: asset.mediaType } : null;
  }

  /** storeOutput holds the PDF's bytes, stores them, and ends the render with `end` in the transaction that lets the
   * hold go (store/file-deletions.ts): another process deleting the same bytes meanwhile leaves them alone. A render
   * cancelled while it printed points at nothing, so its PDF's deletion is recorded in that transaction. */
  private async storeOutput(renderId: string, pdf: Uint8Array, end: (tx: Tx, sha256: string) => Promise<RenderRow | null>): Promise<RenderRow | null> {
    const { store, clock, files, log } = this.options;
    const sha256 = sha256Hex(pdf);
    await awaitFileHold(store, clock, "outputs", sha256, renderId);
    try {
      await files.put("outputs", renderId, pdf);
      return await this.ends.write(async (tx) => {
        // Sent in this order, so the hold's release sees the render's row naming the PDF (or, cancelled, not).
        const [row, held] = await Promise.all([end(tx, sha256), releaseFile(tx, clock, "outputs", sha256, renderId)]);
        if (!held) throw new Error("storing the PDF took so long that its hold ran out: the bytes may have been deleted");
        return row;
      });
    } catch (e) {
      try {
        await store.tx((tx) => releaseFile(tx, clock, "outputs", sha256, renderId));
      } catch (err) {
        // The hold runs out by itself; the sweep then records the deletion.
        log.error({ err, renderId }, "letting go of a PDF's hold failed");
      }
      throw e;
    }
  }

  private async sweep(): Promise<void> {
    const { store, clock, log, retentionDays } = this.options;
    try {
      const swept = await this.queue.sweep(retentionDays);
      if (swept.renders) log.info(swept, "old renders deleted");
      const keys = await sweepIdempotencyKeys({ store, clock });
      if (keys) log.info({ idempotencyKeys: keys }, "expired idempotency keys deleted");
    } catch (e) {
      log.error({ err: e }, "render retention sweep failed");
    }
  }
}
