/** store/store: what every part of renderd asks of the store, whichever engine holds it (SQLite: sqlite-store.ts;
 * PostgreSQL: postgres-store.ts). Asynchronous: on PostgreSQL a statement is a network round trip, and the event loop
 * serves other requests meanwhile; SQLite answers at once. A transaction's statements go through the handle its body
 * is given (`Tx`), so a function that must run inside its change's transaction says so in its signature by taking a
 * `Tx` — the compiler checks the rule — and a statement outside one never joins another request's open transaction
 * (docs/scale-out.md, "The asynchronous store"). */

export type Row = Record<string, unknown>;
export type Params = Record<string, string | number | bigint | boolean | null | Uint8Array>;

/** TxOptions: `durable: false` lets the commit go without waiting for the disk (SQLite `synchronous = NORMAL` for that
 * commit, PostgreSQL `synchronous_commit = off`), for a change whose loss in a power cut loses nothing — one made again
 * after a restart, or that only leaves bytes a sweep collects. The next durable commit makes it durable too. */
export interface TxOptions {
  durable?: boolean;
}

/** Reads are the statements that change nothing, inside a transaction (`Tx`) or outside any (`Store`). `FOR UPDATE`
 * (`OF <table>`, `SKIP LOCKED`) in a query locks its rows on PostgreSQL; SQLite, whose write transactions take turns,
 * leaves them out. */
export interface Reads {
  /** engine tells which database holds the store. */
  readonly engine: "sqlite" | "postgres";
  /** get answers the first row of a query, or null. */
  get<T = Row>(sql: string, params?: Params): Promise<T | null>;
  /** all answers every row of a query. */
  all<T = Row>(sql: string, params?: Params): Promise<T[]>;
}

/** Tx is one open write transaction: what a `Store.tx` body is given, and what every function that must run inside its
 * change's transaction takes. Its statements run in order on the transaction's own connection; statements issued
 * together (`Promise.all`) go to PostgreSQL in one round trip. */
export interface Tx extends Reads {
  /** run executes a statement and answers the number of rows it changed. */
  run(sql: string, params?: Params): Promise<number>;
  /** write sends a statement whose answer the body does not need: on PostgreSQL it goes out with the statements after
   * it, the COMMIT among them, instead of taking a round trip of its own. When it fails the transaction fails with its
   * error, at once on SQLite and at the next statement the body awaits or at the commit on PostgreSQL; a statement
   * after it reads what it wrote. */
  write(sql: string, params?: Params): void;
  /** savepoint runs `fn` inside a savepoint: when it throws, its writes alone are undone and the error is thrown on. */
  savepoint<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** notify wakes the listeners of `channel` (Store.listen), in this process and every other one on the store, once
   * this transaction has committed; nothing when it rolls back. */
  notify(channel: Channel): void;
  /** onEnd calls `fn` once this transaction has ended: with true once it has committed, false when it rolled back. */
  onEnd(fn: (committed: boolean) => void): void;
}

/** Channel names what a wake-up is about: renders queued, webhook or destination deliveries due. */
export type Channel = "renders" | "webhook_deliveries" | "destination_deliveries";

/** Store runs SQL written in the portable subset both engines share (docs/scale-out.md); `$name` parameters. Reads
 * outside a transaction see what has been committed; every write goes through `tx` (the type has no other way). */
export interface Store extends Reads {
  /** tx runs `fn` in one write transaction and answers what it answers once committed; rolled back when it throws.
   * Its body holds the transaction open while it awaits: await the store only, never the network or a file, and never
   * another `tx` (on SQLite it would wait for its own turn: after WRITER_WAIT_MS it fails instead). */
  tx<T>(fn: (tx: Tx) => Promise<T>, options?: TxOptions): Promise<T>;
  /** listen calls `fn` whenever a committed transaction of any process on the store notified `channel` (a wake-up:
   * it may come more than once, or late; pollers keep a slow poll as the safety net); answers the unsubscribe. */
  listen(channel: Channel, fn: () => void): () => void;
  /** sync resolves once every commit this process has made is durable, those made with `durable: false` included: for
   * a change committed that way that is acknowledged later (a render accepted for a `?wait` that ran out). */
  sync(): Promise<void>;
  /** ping tells whether the store answers a query (GET /health). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
