/**
 * group-commit: the state changes that renders ending in one turn of the event loop make, written in one transaction —
 * one commit, so one WAL fsync under synchronous=FULL (DESIGN.md 1), for all of them. The worker also claims the next
 * renders for the freed pages in that transaction (`within`), so a render at saturation costs two commits (queued;
 * ended with the next one claimed) instead of three. Each change resolves only once the transaction has committed:
 * nothing is answered before it is durable. The changes are written in the order of their keys, whatever order they came
 * in: a render's end locks its workspace's usage rows, and two processes ending renders of the same workspaces in
 * opposite orders would each wait for the other (PostgreSQL's `deadlock detected`).
 */
import type { Store, Tx } from "../store/store";

interface Change {
  key: string;
  write: (tx: Tx) => Promise<unknown>;
  settle: (result: unknown) => void;
}

/** GroupCommit collects changes and writes them on the next turn of the event loop. */
export class GroupCommit<T> {
  private pending: Change[] = [];

  /**
   * @param within runs inside the transaction after the changes, given how many there were.
   * @param rolledBack gets `within`'s result when the transaction did not commit after all (to undo what it counted).
   * @param committed gets `within`'s result once the transaction has committed.
   */
  constructor(
    private readonly store: Store,
    private readonly within: (tx: Tx, changes: number) => Promise<T>,
    private readonly rolledBack: (result: T) => void,
    private readonly committed: (result: T) => void,
  ) {}

  /** write answers the change's result (never an Error) once it is committed; a change that throws rejects alone, its
   * savepoint rolled back. `key` names the rows the change locks (the render's workspace): changes are written in its order. */
  write<R>(key: string, change: (tx: Tx) => Promise<R>): Promise<R> {
    return new Promise((resolve, reject) => {
      const settle = (result: unknown) => (result instanceof Error ? reject(result) : resolve(result as R));
      if (this.pending.push({ key, write: change, settle }) === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const changes = this.pending.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.pending = [];
    const results: unknown[] = [];
    let extra: T | undefined;
    try {
      await this.store.tx(async (tx) => {
        // A change alone needs no savepoint of its own (two round trips on PostgreSQL): its failure is the transaction's,
        // and `within` goes out beside it, sharing its round trips (they touch different rows: an ending render, and
        // queued ones).
        if (changes.length === 1) {
          const [result, claimed] = await Promise.allSettled([changes[0]!.write(tx), this.within(tx, 1)]);
          // What `within` did is undone with the transaction when the change fails: rolledBack must hear of it.
          if (claimed.status === "fulfilled") extra = claimed.value;
          if (result.status === "rejected") throw result.reason;
          if (claimed.status === "rejected") throw claimed.reason;
          results.push(result.value);
          return;
        }
        for (const change of changes) {
          try {
            results.push(await tx.savepoint(change.write));
          } catch (e) {
            results.push(asError(e));
          }
        }
        extra = await this.within(tx, changes.length);
      });
    } catch (e) {
      if (extra !== undefined) this.rolledBack(extra);
      extra = undefined;
      results.splice(0, results.length, ...changes.map(() => asError(e)));
    }
    changes.forEach((change, i) => change.settle(results[i]!));
    if (extra !== undefined) this.committed(extra);
  }
}

const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));
