/**
 * worker: runs the render queue (queue/queue.ts) on the Chromium pool. It claims the fair pick whenever a page is free,
 * prints it, stores the PDF and ends the render through the queue.
 * A render lost to a crashed page or browser is printed once more on the replacement; a render interrupted by stop()
 * goes back to the queue, so a restart loses none.
 */
import type { Logger } from "pino";
import { ApiError } from "../errors";
import { Backoff } from "../lib/backoff";
import { Laps } from "../lib/laps";
import { SerialRunner } from "../lib/serial-runner";
import type { Clock } from "../lib/clock";
import type { Metrics } from "../metrics/metrics";
import { noTracing, type Tracing } from "../tracing/tracing";
import type { Claim, Queue, RenderRow } from "../queue/queue";
import { SPILL_LATE_MS, type SpooledFiles } from "../store/output-spool";
import { storageFailure } from "../store/space";
import type { Store, Tx } from "../store/store";
import type { FinalStatus } from "../store/render-status";
import type { PrintJob } from "./job";
import { isOperationJob, type OperationJob } from "./operation";
import { operate, printJob, type SealPdf } from "./produce";
import { producing as makeProducing, print } from "./producing";
import { storeMade, type StoreOutputDeps } from "./store-output";
import { GroupCommit } from "./group-commit";
import { QueueWatch } from "./queue-watch";
import { Cancelled, LeaseLost, Stopping, type Ahead, type Claimed, type Running } from "./running";
import { PrintsAhead } from "./print-ahead";
import { renewLeases, stopCancelledElsewhere } from "./leases";
import type { RenderPool } from "./pool";
import { sweep } from "./sweep";
import { RenderWaits } from "./waits";

export interface WorkerOptions {
  store: Store;
  clock: Clock;
  log: Logger;
  /** The file store, with the spool a PDF is committed in (store/output-spool.ts). */
  files: SpooledFiles;
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
  /** The render's spans: queue wait, print, finishing, store write (tracing/tracing.ts; off by default). */
  tracing?: Tracing;
}

// A safety net only: every change that can let a render start (a new render, a free page) kicks the worker at once;
// the poll catches what no kick announces, such as a workspace whose suspension was lifted by the CLI, and takes back
// the renders of a process whose leases ran out (a lease lasts RENDER_LEASE_MS: a second more does not matter).
const POLL_MS = 1_000;
const SWEEP_EVERY_MS = 60 * 60_000;

/** RenderWorker owns the queue of one renderd process. */
export class RenderWorker {
  private readonly running = new Map<string, Running>();
  private readonly waits: RenderWaits;
  /** Ends renders that finish together in one transaction, which claims the next ones for the pages they free. */
  private readonly ends: GroupCommit<Claimed[]>;
  /** The queue this worker takes renders from (read for its depth by /metrics). */
  readonly queue: Queue;
  /** Looks for renders to start, one look at a time; a kick while it looks makes it look once more after. A fill that
   * throws (a queued job that does not parse) is the back-off's, as a failing store is. */
  private readonly fills = new SerialRunner({ job: () => this.fill(), failed: (err) => this.faults.failed(err), rerun: () => !this.stopped });
  /** Claims asked for and not answered yet: each holds a page, so that claims made at once never exceed the pages. */
  private claiming = 0;
  /** Prints begun ahead of their acceptance (printAhead): each holds a page too until a claim adopts it. */
  private readonly aheads = new PrintsAhead();
  private stopped = true;
  /** Held by the operator (`renderd tui`'s drain, pause()): renders are accepted but none is claimed until resumed. */
  paused = false;
  private readonly watch = new QueueWatch();
  /** Whether renders left processing by a dead process were taken back: claims wait for it (a full disk can delay it). */
  private recovered = false;
  /** Renders whose end could not be written (DATA_DIR full, the store away): put back in the queue once it takes writes. */
  private readonly unwritten = new Set<string>();
  /** The store's failures as the worker meets them: logged once per outage, claims retried with back-off (issue 26). */
  private readonly faults: Backoff;
  private unlisten?: () => void;
  private poller?: ReturnType<typeof setInterval>;
  private sweeper?: ReturnType<typeof setInterval>;
  private renewer?: ReturnType<typeof setInterval>;

  constructor(private readonly options: WorkerOptions) {
    this.queue = options.queue;
    this.faults = new Backoff(options.log, "claiming or ending renders");
    this.waits = new RenderWaits(options.store, options.queue, (err) => this.faults.failed(err));
    this.ends = new GroupCommit(
      options.store,
      (tx, ending) => this.claimFree({ tx, freeing: ending }),
      (claimed) => this.rolledBack(claimed),
      (claimed) => this.startAll(claimed),
    );
  }

  /** start requeues what a dead process left processing, sweeps old renders (and expired idempotency keys), writes the
   * PDFs a stopped process left spooled, and begins taking renders: at once when a render is queued (in this process or
   * another, Store.listen), and on a slow poll as the safety net. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.recover();
    void sweep(this.options, 0);
    this.unlisten = this.options.store.listen("renders", () => {
      if (this.watch.woken()) this.kick();
    });
    this.poller = setInterval(() => {
      this.watch.mayHaveChanged();
      void this.guarded(async () => {
        await stopCancelledElsewhere(this.queue, this.running, (id) => this.cancel(id));
        // Only a shared store has other processes whose leases run out: a SQLite file is this process's alone, and
        // start's recover() took back what an earlier one left.
        if (this.options.store.engine === "postgres") await this.queue.takeBack();
      });
      this.kick();
    }, POLL_MS);
    this.sweeper = setInterval(() => void sweep(this.options, SPILL_LATE_MS), SWEEP_EVERY_MS);
    // A third of the lease: two renewals may be missed (a stalled event loop) before another process takes a render.
    this.renewer = setInterval(() => void this.guarded(() => renewLeases(this.queue, this.running, (id) => this.cancel(id))), this.queue.leaseMs / 3);
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
    // A fill that looked before `stopped` was set may still be claiming (on PostgreSQL its read of the queue is on the
    // network): what it claims must be among the renders stopped below, not start printing after stop() resolved.
    await this.fills.idle();
    if (graceMs > 0 && this.running.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.all([...this.running.values()].map((r) => r.done)), grace]);
      clearTimeout(timer);
    }
    for (const r of this.running.values()) r.controller.abort(new Stopping("renderd is stopping"));
    await Promise.all([...this.running.values()].map((r) => r.done));
    this.waits.endAll();
  }

  /** kick looks for renders to start for the free pages; a kick while it looks makes it look once more after. */
  kick(): void {
    if (!this.stopped) void this.fills.run();
  }

  /** pause holds the queue (true: no render is claimed, those printing finish) or releases it (false). */
  pause(on: boolean): void {
    this.paused = on;
    if (!on) this.kick();
  }

  /** cancel stops printing a render whose final state `cancelled` has just been written. */
  cancel(renderId: string): void {
    this.running.get(renderId)?.controller.abort(new Cancelled("cancelled"));
  }

  /** printSample prints a job that belongs to no workspace and is not queued — the template starters' sample PDFs,
   * printed once per process — with no asset but what the job embeds. */
  async printSample(job: PrintJob): Promise<Uint8Array> {
    return (await this.options.pool.render({ ...job, assets: async () => null })).pdf;
  }

  /** inFlight answers the renders being printed now, oldest first (for the operator's /internal/state). */
  inFlight(): { renderId: string; workspaceId: string; startedAt: Date }[] {
    return [...this.running].map(([renderId, r]) => ({ renderId, workspaceId: r.workspaceId, startedAt: r.startedAt }));
  }

  /**
   * claimAccepted claims, in the transaction that queues renders, the next ones for the pages free now, and starts them
   * once it has committed: at concurrency 1 the render just accepted starts without a claim of its own (a transaction,
   * and the wake-up that leads to it: ~0.45 ms of renderd's ~4.9 ms per render, docs/performance.md). A render claimed
   * here takes over the print begun ahead for it (`aheads`, by render id: printAhead). The claim is the queue's fair
   * one, as any other. Only on SQLite, whose writes take turns anyway: on a shared store it would hold the
   * workspace's lock, which every acceptance of the workspace waits for, two round trips longer.
   */
  async claimAccepted(tx: Tx, queued: readonly string[], aheads?: ReadonlyMap<string, Ahead>): Promise<void> {
    if (this.options.store.engine !== "sqlite" || !this.recovered) return;
    // No more than the transaction queued: with pages to spare, a second look would find the queue empty. The pages the
    // prints begun ahead hold are theirs to claim.
    const claimed = await this.claimFree({ tx, most: queued.length, queuedNow: true, freeing: aheads?.size });
    if (claimed.length === 0) return;
    for (const { claim, running } of claimed) {
      const ahead = aheads?.get(claim.renderId);
      // A cancel between the claim and the commit stops the print begun ahead.
      if (ahead) Object.assign(running, { ahead, controller: ahead.controller });
    }
    tx.onEnd((committed) => {
      if (!committed) return this.rolledBack(claimed);
      for (const { running } of claimed) this.aheads.accepted(running.workspaceId, running.ahead);
      this.startAll(claimed);
      // The fair claim may have taken older renders of other workspaces instead of those this transaction queued.
      if (queued.every((id) => this.running.get(id)?.started)) this.watch.tookAllAccepted();
    });
  }

  /**
   * printAhead begins printing a render's job before its acceptance is written — the allowances, its row, its claim —
   * so that at concurrency 1 those ~0.7 ms pass while Chromium prints (docs/performance.md). Only where the acceptance
   * claims (claimAccepted: SQLite), for a print job, with a page free and the queue known empty, so that the fair claim
   * takes this render; undefined otherwise. The acceptance hands it to claimAccepted, which adopts it for the render it
   * claims; the caller lets it go (letGo) once the acceptance has ended, whatever became of it.
   */
  printAhead(workspaceId: string, job: PrintJob | OperationJob): Ahead | undefined {
    if (this.options.store.engine !== "sqlite" || !this.recovered || this.stopped || this.paused || !this.faults.ready()) return undefined;
    if (isOperationJob(job) || !this.aheads.mayBegin(workspaceId) || !this.watch.knownEmpty() || this.busy() >= this.options.concurrency) return undefined;
    return this.aheads.begin(workspaceId, job, (signal) => print(this.options, workspaceId, job, signal));
  }

  /** letGo ends a print begun ahead that no claim adopted (the acceptance refused or rolled back): it is stopped, and its
   * page is looked at again once the pool has it back. Adopted, it is the render's now, and nothing happens. */
  letGo(ahead: Ahead): void {
    this.aheads.letGo(ahead, () => this.kick());
  }

  /** ended tells whoever waits on a render (`?wait`) that it reached a final state, handing over `row` when it is the
   * one just written. */
  ended(renderId: string, row?: RenderRow): void {
    this.waits.ended(renderId, row);
  }

  /** waitEnded: see RenderWaits.waitEnded. */
  waitEnded(renderId: string, ms: number, isFinal: () => Promise<boolean>): Promise<RenderRow | undefined> {
    return this.waits.waitEnded(renderId, ms, isFinal, this.running.get(renderId)?.started === true);
  }

  private async fill(): Promise<void> {
    if (!this.faults.ready() || !(await this.recover())) return;
    for (const id of this.unwritten) {
      if (!(await this.guarded(() => this.queue.requeue(id)))) return;
      this.unwritten.delete(id);
      this.watch.mayHaveChanged();
    }
    this.startAll(await this.claimFree());
  }

  /** guarded runs one step of a loop on the store: a failure is the back-off's to log and wait out; false when it failed. */
  private async guarded(step: () => Promise<unknown>): Promise<boolean> {
    try {
      await step();
      return true;
    } catch (e) {
      this.faults.failed(e);
      return false;
    }
  }

  /** recover takes back what a dead process left processing, once; false while the store cannot take that write. */
  private async recover(): Promise<boolean> {
    return (this.recovered ||= await this.guarded(async () => {
      const recovered = await this.queue.recover();
      if (recovered.requeued || recovered.failed) this.options.log.warn(recovered, "renders left processing by a previous process");
    }));
  }

  /** putBack returns a render whose end could not be written to the queue, or keeps it for fill to try again. */
  private async putBack(renderId: string): Promise<void> {
    if (await this.guarded(() => this.queue.requeue(renderId))) this.watch.mayHaveChanged();
    else this.unwritten.add(renderId);
  }

  /** rolledBack forgets renders claimed in a transaction that did not commit: they are queued again (or were never). */
  private rolledBack(claimed: Claimed[]): void {
    for (const { claim } of claimed) this.running.delete(claim.renderId);
    this.watch.mayHaveChanged();
  }

  /** claimFree claims a render for every free page (`most` at most) — with `freeing` more pages whose renders are ending
   * (or whose prints, begun ahead, wait for the renders queued in `tx`),
   * in `tx` when given, which `queuedNow` says queued renders (so the queue is not empty) — and counts each as running
   * at once. A claim that fails ends the round; what was claimed so far stays claimed, the rest waits for the back-off. */
  private async claimFree({ freeing = 0, tx, most = Infinity, queuedNow = false }: { freeing?: number; tx?: Tx; most?: number; queuedNow?: boolean } = {}): Promise<Claimed[]> {
    const { clock, concurrency } = this.options;
    const claimed: Claimed[] = [];
    while (claimed.length < most && !this.stopped && !this.paused && this.faults.ready() && this.busy() - freeing < concurrency) {
      if (!queuedNow && this.watch.knownEmpty()) break;
      const wakes = this.watch.wakes;
      let claim: Claim | null;
      this.claiming += 1;
      try {
        claim = await this.queue.claim(tx);
      } catch (err) {
        this.faults.failed(err);
        break;
      } finally {
        this.claiming -= 1;
      }
      if (!claim) {
        this.watch.foundNothing(wakes);
        break;
      }
      const running: Running = { workspaceId: claim.workspaceId, startedAt: clock.now(), controller: new AbortController(), done: Promise.resolve(), started: false };
      this.running.set(claim.renderId, running);
      claimed.push({ claim, running });
    }
    return claimed;
  }

  /** busy counts the pages held: by renders claimed, claims on their way and prints begun ahead. */
  private busy(): number {
    return this.running.size + this.claiming + this.aheads.held;
  }

  private startAll(claimed: Claimed[]): void {
    for (const { claim, running } of claimed) {
      running.started = true;
      running.done = this.run(claim, running.controller.signal).catch((err) => {
        // The end could not be written (the store refused or did not answer): the render goes back to the queue, to be
        // printed again once the store takes writes. Left unhandled, the rejection would end the process.
        this.faults.failed(err);
        return this.putBack(claim.renderId);
      });
    }
  }

  private async run(head: Claim, signal: AbortSignal): Promise<void> {
    const { log } = this.options;
    const id = head.renderId;
    const started = performance.now();
    const laps = new Laps();
    const claimedAt = this.running.get(id)?.startedAt ?? this.options.clock.now();
    const spans = (this.options.tracing ?? noTracing).render({ renderId: id, workspaceId: head.workspaceId, createdAt: head.createdAt, claimedAt, origin: head.origin });
    const ended = (status: FinalStatus, errorCode?: string) => {
      spans.end(status, errorCode);
      this.counted(head, status, (performance.now() - started) / 1000);
    };
    let final: RenderRow | null = null;
    // Once the PDF is made, a failure is the store's (or the bucket's), not the render's: it is not failed for it, but
    // put back in the queue (startAll), and printed again by whichever process takes it.
    let storing = false;
    // Once the end is written: the wake-ups counted before it, when its transaction claimed for the page this render
    // frees (GroupCommit's `within`; not while the back-off held claims). A render queued since, while this one still
    // held its page, is claimed by a look after it.
    let endedAfterWakes: number | undefined;
    try {
      const ahead = this.running.get(id)?.ahead;
      // A stored job that does not parse (written by a damaged or foreign store) fails its render like any other fault.
      const job = ahead?.job ?? (JSON.parse(head.job) as PrintJob | OperationJob);
      let printedAt: string | undefined;
      const producing = makeProducing(this.options, spans.phase, () => {
        printedAt = this.options.clock.now().toISOString();
        laps.lap("print");
      }, ahead?.printed);
      const made = isOperationJob(job) ? await operate(producing, head.workspaceId, job) : await printJob(producing, head.workspaceId, job, signal);
      storing = true;
      const wakesBefore = this.faults.ready() ? this.watch.wakes : undefined;
      laps.lap("finish");
      final = await spans.phase("render.store", () => storeMade(this.storing(head.workspaceId), this.queue, id, job, made, printedAt, laps));
      laps.lap("commit");
      endedAfterWakes = wakesBefore;
      ended(final ? "succeeded" : "cancelled");
      // `ahead`: printed while its acceptance was written, so pool.render()'s `ms` began before the print lap did.
      const fields = { renderId: id, workspaceId: head.workspaceId, pages: made.pages[0], bytes: made.pdfs[0]!.length, warnings: made.warnings.length, ms: Math.round(made.ms), phases: laps.ms, ...(ahead && { ahead: true }) };
      // Written once the waiting request has its answer (this turn's microtasks): its ~0.1 ms is not the caller's.
      setImmediate(() => log.info(fields, "render succeeded"));
    } catch (e) {
      if (signal.reason instanceof Stopping) return await this.queue.requeue(id);
      if (signal.reason instanceof LeaseLost) return;
      // Cancelled: the cancel request wrote the final state already.
      if (signal.reason instanceof Cancelled) return ended("cancelled");
      // DATA_DIR full or read-only is not the render's fault either (issue 26).
      if (storing || storageFailure(e)) throw e;
      const error = e instanceof ApiError ? e : new ApiError("RENDER_FAILED", "The render failed.");
      if (!(e instanceof ApiError)) log.error({ err: e, renderId: id }, "render failed unexpectedly");
      else log.info({ renderId: id, workspaceId: head.workspaceId, code: error.code }, "render failed");
      final = await this.queue.fail(id, error.code, error.message);
      if (final) ended("failed", error.code);
    } finally {
      // An end written is the worker's sign that the store takes its writes again (a claim alone may fit in the WAL).
      if (final) this.faults.succeeded();
      spans.end("not_ended");
      this.running.delete(id);
      this.ended(id, final ?? undefined);
      if (endedAfterWakes !== this.watch.wakes) this.kick();
    }
  }

  /** counted tells the metrics that a render this worker took has ended: its wait in the queue and its print time. */
  private counted(head: Claim, status: FinalStatus, renderSeconds: number): void {
    const startedAt = this.running.get(head.renderId)?.startedAt;
    const queueSeconds = startedAt ? (startedAt.getTime() - Date.parse(head.createdAt)) / 1000 : undefined;
    this.options.metrics?.renderEnded({ status, test: head.test, queueSeconds, renderSeconds });
  }

  /** storing is what storing a workspace's PDFs needs: the group commit ends them with others ending at once. */
  private storing(workspaceId: string): StoreOutputDeps {
    const { store, clock, files, log } = this.options;
    return { store, clock, files, log, write: (end) => this.ends.write(workspaceId, end) };
  }
}
