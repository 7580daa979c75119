/** watch-tx: a store's transactions observed statement by statement, for tests that check what a change writes and how
 * it commits (durable or not) without changing what it does. */
import type { Params, Store, Tx, TxOptions } from "../../src/store/store";

/** TxWatcher hears one transaction: each statement its body sends (`run`, `write`, `get`, `all`), then its end. */
export interface TxWatcher {
  statement(sql: string, params: Params | undefined): void;
  /** The body has answered (the COMMIT follows). */
  done?(): void;
}

/** watchTx answers `store.tx` wrapped so that `watch`, called with each transaction's options, hears its statements. */
export function watchTx(store: Store, watch: (options: TxOptions | undefined) => TxWatcher): Store["tx"] {
  const tx = store.tx.bind(store);
  return (fn, options) => {
    const watcher = watch(options);
    return tx(async (handle) => {
      const heard = <F extends (sql: string, params?: Params) => unknown>(call: F) =>
        ((sql: string, params?: Params) => (watcher.statement(sql, params), call.call(handle, sql, params))) as F;
      const observed: Tx = Object.assign(Object.create(handle), { run: heard(handle.run), write: heard(handle.write), get: heard(handle.get), all: heard(handle.all) });
      const answer = await fn(observed);
      watcher.done?.();
      return answer;
    }, options);
  };
}
