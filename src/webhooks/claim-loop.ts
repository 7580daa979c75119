/**
 * claim-loop: the loop both delivery dispatchers run (webhooks/dispatcher.ts, destinations/dispatcher.ts). Rows are the
 * queue: each tick writes the outcomes of the attempts that ended and leases due rows for the free slots, in one
 * transaction, at most `concurrency` attempts at once and `perKey` to one endpoint or destination. Each row is claimed
 * by itself (`FOR UPDATE … SKIP LOCKED`): processes claiming at once take different rows and never wait for each other.
 * A lease that runs out (a crash mid-attempt) frees its row for the next claim, so a restart loses nothing.
 */
import type { Logger } from "pino";
import { Backoff } from "../lib/backoff";
import { SerialRunner } from "../lib/serial-runner";
import type { Channel, Reads, Store, Tx } from "../store/store";

export interface ClaimLoopOptions {
  store: Store;
  log: Logger;
  /** Names the rows in the log: "webhook deliveries". */
  what: string;
  /** The wake-up channel new due rows are notified on (Store.listen). */
  channel: Channel;
  concurrency: number;
  perKey: number;
  pollMs: number;
}

/** ClaimLoop runs a dispatcher's attempts; each dispatcher extends it with its parts (what is due, how to take, send and
 * record one): R is a due row as read, J the claimed job, F a finished attempt. start/stop like every supervised piece
 * (STYLE habit 8). */
export abstract class ClaimLoop<R extends { id: string }, J, F> {
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly load = new Map<string, number>();
  private finished: F[] = [];
  private scheduled = false;
  /** Runs the rounds, one at a time, so a row this process is sending is never claimed twice by it; a wake-up during
   * a round asks for one more after it. A round that throws past its own catch is the back-off's too. */
  private readonly rounds = new SerialRunner({ job: () => this.round(), failed: (err) => this.faults.failed(err) });
  private stopping = false;
  private poller: ReturnType<typeof setInterval> | null = null;
  private unsubscribe: (() => void) | null = null;
  /** A store that fails (a full disk, a database away) is logged once and retried with back-off (issue 26). */
  private readonly faults: Backoff;

  constructor(private readonly loop: ClaimLoopOptions) {
    this.faults = new Backoff(loop.log, `recording or claiming ${loop.what}`);
  }

  /** Due rows in the order to send them, at most `limit`, leaving out those whose key is in `busy`; read before the
   * tick's transaction to see whether there is anything to do, and inside it with `lock` to claim them (the rows locked,
   * those another process is claiming skipped). */
  protected abstract candidates(db: Reads, limit: number, busy: string[], lock: boolean): Promise<R[]>;
  /** Leases a row and answers its job, or settles it unsent and answers null; inside the tick's transaction. */
  protected abstract take(tx: Tx, row: R): Promise<J | null>;
  /** The key `perKey` counts by: the endpoint or destination. */
  protected abstract keyOf(row: R): string;
  /** Sends one job; it never throws (an unexpected error is an outcome too). */
  protected abstract attempt(job: J): Promise<F>;
  /** Writes one finished attempt's outcome; inside the tick's transaction. */
  protected abstract record(tx: Tx, finished: F): Promise<void>;

  /** start polls for due rows and listens for new ones (any process's, Store.listen); answers false if running. */
  start(): boolean {
    if (this.poller) return false;
    this.unsubscribe = this.loop.store.listen(this.loop.channel, () => this.notify());
    this.poller = setInterval(() => this.notify(), this.loop.pollMs);
    this.notify();
    return true;
  }

  /** notify asks for a tick soon; calls before it runs share it (one transaction). */
  notify(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => {
      this.scheduled = false;
      void this.rounds.run();
    }, 0);
  }

  /** runOnce sends everything due now and waits until no attempt is in flight and every outcome is written. An empty
   * `inflight` alone does not say the outcomes are written: an attempt that ends during a round's statements (one that
   * fails before any I/O, or a round another wake-up started) leaves its outcome for the next round. */
  async runOnce(): Promise<void> {
    for (;;) {
      await this.rounds.run();
      if (this.inflight.size > 0) await Promise.all([...this.inflight.values()]);
      else if (this.finished.length === 0) return;
      // The outcomes wait for a round; after a store failure, for its back-off (a round before it would do nothing).
      else await Bun.sleep(this.faults.waitMs());
    }
  }

  /** inFlight answers how many attempts are being sent now. */
  get inFlight(): number {
    return this.inflight.size;
  }

  /** stop claims nothing more and waits for the attempts in flight, so their outcomes are written before the store closes. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    this.unsubscribe?.();
    // A round under way when stop() was called may still claim: once it has ended no round claims again, and only then
    // is `inflight` every attempt there will be. Looked at before, an attempt claimed after the look outlived stop() and
    // its outcome met a closed store.
    await this.rounds.idle();
    while (this.inflight.size > 0) await Promise.all([...this.inflight.values()]);
    await this.rounds.run();
  }

  /**
   * round writes the outcomes of the attempts that ended and claims due rows for the free slots, in one transaction: one
   * commit per round rather than two per attempt (synchronous=FULL makes each commit a sync to disk). Outcomes are
   * written before the claim, so a row that just failed is never claimed again on its old due time.
   */
  private async round(): Promise<void> {
    if (!this.faults.ready()) return;
    const finished = this.finished;
    this.finished = [];
    const free = this.stopping ? 0 : this.loop.concurrency - this.inflight.size;
    if (finished.length === 0 && free <= 0) return;
    let claimed: Array<{ id: string; key: string; job: J }>;
    try {
      // Nothing to write and nothing due: a look outside any transaction, so an idle process opens none.
      if (finished.length === 0 && (await this.due(this.loop.store)).length === 0) return;
      claimed = await this.loop.store.tx(async (tx) => {
        await Promise.all(finished.map((f) => this.record(tx, f)));
        return free > 0 ? this.claim(tx, free) : [];
      });
    } catch (err) {
      // Unwritten outcomes are not lost for good: their leases run out and those rows are sent again.
      this.faults.failed(err);
      return;
    }
    this.faults.succeeded();
    for (const { id, key, job } of claimed) {
      this.load.set(key, (this.load.get(key) ?? 0) + 1);
      const attempt = this.attempt(job).then((f) => {
        this.finished.push(f);
        this.inflight.delete(id);
        const load = this.load.get(key)! - 1;
        if (load > 0) this.load.set(key, load);
        else this.load.delete(key);
        this.notify();
      });
      this.inflight.set(id, attempt);
    }
  }

  /** due answers rows due now that this process could send (up to `limit` beyond those it is sending): keys at their cap
   * are left out by the query, so a long backlog of one never hides the others' due rows. */
  private async due(db: Reads, limit = 1, lock = false): Promise<R[]> {
    const { perKey } = this.loop;
    const busy = [...this.load].filter(([, load]) => load >= perKey).map(([key]) => key);
    return (await this.candidates(db, limit + this.inflight.size, busy, lock)).filter((row) => !this.inflight.has(row.id));
  }

  private async claim(tx: Tx, limit: number): Promise<Array<{ id: string; key: string; job: J }>> {
    const { perKey } = this.loop;
    // Rows this process is still sending are skipped here, even if a moved clock made their lease look expired.
    const rows = await this.due(tx, 2 * limit, true);
    const perKeyClaimed = new Map<string, number>();
    const chosen: R[] = [];
    for (const row of rows) {
      if (chosen.length >= limit) break;
      const key = this.keyOf(row);
      if ((this.load.get(key) ?? 0) + (perKeyClaimed.get(key) ?? 0) >= perKey) continue;
      perKeyClaimed.set(key, (perKeyClaimed.get(key) ?? 0) + 1);
      chosen.push(row);
    }
    const jobs = await Promise.all(chosen.map((row) => this.take(tx, row)));
    // A row settled unsent freed its slot: the next round looks again.
    if (jobs.includes(null)) void this.rounds.run();
    return chosen.flatMap((row, i) => (jobs[i] === null ? [] : [{ id: row.id, key: this.keyOf(row), job: jobs[i]! }]));
  }
}
