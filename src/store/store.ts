/** store/store: what every part of renderd asks of the store, whichever engine holds it (SQLite: sqlite-store.ts;
 * PostgreSQL: postgres-store.ts). Synchronous on purpose: a transaction's body never awaits, so one process's
 * transactions cannot interleave, on either engine (docs/scale-out.md, "The PostgreSQL store"). */

export type Row = Record<string, unknown>;
export type Params = Record<string, string | number | bigint | boolean | null | Uint8Array>;

/** TxOptions: `durable: false` lets the commit go without waiting for the disk (SQLite `synchronous = NORMAL` for that
 * commit, PostgreSQL `synchronous_commit = off`), for a change whose loss in a power cut loses nothing — one made again
 * after a restart, or that only leaves bytes a sweep collects. The next durable commit makes it durable too. Ignored
 * by a transaction nested in another: the outer one's commit decides. */
export interface TxOptions {
  durable?: boolean;
}

/** Store runs SQL written in the portable subset both engines share (docs/scale-out.md); `$name` parameters. */
export interface Store {
  /** engine tells which database holds the store. */
  readonly engine: "sqlite" | "postgres";
  /** inTransaction tells whether a `tx` is open: functions that must run inside their change's transaction check it. */
  readonly inTransaction: boolean;
  /** tx runs `fn` in one write transaction, serialised with every other writer of the store; `fn` must not await. */
  tx<T>(fn: () => T, options?: TxOptions): T;
  /** get answers the first row of a query, or null. */
  get<T = Row>(sql: string, params?: Params): T | null;
  /** all answers every row of a query. */
  all<T = Row>(sql: string, params?: Params): T[];
  /** run executes a statement and answers the number of rows it changed. */
  run(sql: string, params?: Params): number;
  /** sync resolves once every commit this process has made is durable, those made with `durable: false` included: for
   * a change committed that way that is acknowledged later (a render accepted for a `?wait` that ran out). */
  sync(): Promise<void>;
  /** ping tells whether the store answers a query (GET /health). */
  ping(): boolean;
  close(): void;
}
