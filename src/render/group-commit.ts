/**
 * group-commit: the state changes that renders ending in one turn of the event loop make, written in one transaction —
 * one commit, so one WAL fsync under synchronous=FULL (DESIGN.md 1), for all of them. The worker also claims the next
 * renders for the freed pages in that transaction (`within`), so a render at saturation costs two commits (queued;
 * ended with the next one claimed) instead of three. Each change resolves only once the transaction has committed:
 * nothing is answered before it is durable.
 */
import type { Store } from "../store/store";

interface Change {
  write: () => unknown;
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
    private readonly within: (changes: number) => T,
    private readonly rolledBack: (result: T) => void,
    private readonly committed: (result: T) => void,
  ) {}

  /** write answers the change's result (never an Error) once it is committed; a change that throws rejects alone, its
   * savepoint rolled back. */
  write<R>(change: () => R): Promise<R> {
    return new Promise((resolve, reject) => {
      const settle = (result: unknown) => (result instanceof Error ? reject(result) : resolve(result as R));
      if (this.pending.push({ write: change, settle }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const changes = this.pending;
    this.pending = [];
    const results: unknown[] = [];
    let extra: T | undefined;
    try {
      this.store.tx(() => {
        for (const change of changes) {
          try {
            // A nested transaction is a savepoint of its own.
            results.push(this.store.tx(change.write));
          } catch (e) {
            results.push(asError(e));
          }
        }
        extra = this.within(changes.length);
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
