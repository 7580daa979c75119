/** render/waits: the requests waiting on a render's end (`?wait`, a preview). The worker that ends a render tells them
 * at once; on a shared store a render another process ends reaches this one only through the store, so while requests
 * wait they are asked about together every SHARED_WAIT_POLL_MS. */
import type { Queue, RenderRow } from "../queue/queue";
import { FINAL_STATUSES } from "../store/render-status";
import type { Store } from "../store/store";

// How often a `?wait` on a shared store asks whether another process ended the render: the most a client waits past the end.
const SHARED_WAIT_POLL_MS = 100;

/** A waiting request: how to answer it, and how it tells whether its render has ended. */
type Waiter = { done: (row?: RenderRow) => void; isFinal: () => Promise<boolean> };

/** RenderWaits holds one process's waiting requests, by render. */
export class RenderWaits {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private sharedPoll?: ReturnType<typeof setInterval>;

  /** @param failed is told when asking the store failed (the worker's back-off); the next poll asks again. */
  constructor(
    private readonly store: Pick<Store, "engine">,
    private readonly queue: Pick<Queue, "inStatusAmong">,
    private readonly failed: (err: unknown) => void,
  ) {}

  /** ended tells whoever waits on a render that its print is over here: with `row`, the final state just written, handed
   * over; without, one read looks for all of them, and they go on waiting while the render has not ended — an end that
   * failed (a deadlock, a full disk) puts it back in the queue, and a `?wait` is answered when it ends or its time is
   * up, not with the render still processing. */
  ended(renderId: string, row?: RenderRow): void {
    if (row) return this.release(renderId, row);
    const [first] = this.waiters.get(renderId) ?? [];
    first?.isFinal().then(
      (final) => final && this.release(renderId),
      () => {},
    );
  }

  /** endAll lets every waiting request answer with the render as it is (the process is stopping). */
  endAll(): void {
    for (const id of [...this.waiters.keys()]) this.release(id);
    clearInterval(this.sharedPoll);
    this.sharedPoll = undefined;
  }

  /** release answers everyone waiting on the render. */
  private release(renderId: string, row?: RenderRow): void {
    const set = this.waiters.get(renderId);
    this.waiters.delete(renderId);
    for (const waiter of set ?? []) waiter.done(row);
  }

  /** waitEnded resolves when `isFinal()` holds — checked at once and again whenever the render ends — or after `ms`;
   * with the render's final row when this process ended it (written and committed), so the answer needs no read back.
   * `printingHere`: the render prints in this process, whose worker tells ended() when it ends: nothing can have ended
   * it yet, so it is not read at once (a statement less per `?wait` render). */
  waitEnded(renderId: string, ms: number, isFinal: () => Promise<boolean>, printingHere = false): Promise<RenderRow | undefined> {
    return new Promise((resolve) => {
      let set = this.waiters.get(renderId);
      if (!set) this.waiters.set(renderId, (set = new Set()));
      const done = (row?: RenderRow) => {
        clearTimeout(timer);
        set.delete(waiter);
        if (set.size === 0 && this.waiters.get(renderId) === set) this.waiters.delete(renderId);
        resolve(row);
      };
      const waiter = { done, isFinal };
      const timer = setTimeout(() => done(), ms);
      set.add(waiter);
      if (printingHere) {
        // Another process can still take the render over (its lease lost): the shared store is asked as usual.
        if (this.store.engine !== "sqlite") this.watchOtherProcesses();
        return;
      }
      isFinal().then(
        (final) => {
          if (final) done();
          else if (this.store.engine !== "sqlite") this.watchOtherProcesses();
        },
        // The store did not answer: the wait goes on, and ends with the render or the time.
        () => {},
      );
    });
  }

  /** watchOtherProcesses asks the store which of the waited renders another process ended: one query for all of them. */
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
        for (const id of await this.queue.inStatusAmong(waited, FINAL_STATUSES)) this.release(id);
      } catch (err) {
        this.failed(err);
      } finally {
        asking = false;
      }
    }, SHARED_WAIT_POLL_MS);
  }
}
