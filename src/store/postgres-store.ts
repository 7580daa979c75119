/** store/postgres-store: the Store on PostgreSQL, shared by every renderd process of a scale-out (issue 15), on Bun's
 * own asynchronous client: the event loop serves other requests while a statement is on the network. */
import { SQL, type ReservedSQL } from "bun";
import { randomBase62 } from "../lib/ids";
import { Listeners } from "./listeners";
import type { Channel, Params, Row, Store, Tx, TxOptions } from "./store";

/** Connections of one process: enough for the requests and the worker's transactions of a busy process to overlap;
 * twenty hosts open 20 × (POOL + 1 listener + 1 for /health) (docs/scale-out.md). */
export const POOL = 8;
// How long a statement may run, a lock be waited for and a transaction stay open doing nothing (docs/scale-out.md,
// "One host's outage stays its own"): a process whose link froze mid-transaction loses it after IDLE_IN_TX_MS and
// its row locks with it, so another process waits for it at most that long.
export const STATEMENT_TIMEOUT_MS = 15_000;
export const LOCK_TIMEOUT_MS = 5_000;
export const IDLE_IN_TX_MS = 5_000;
const PING_TIMEOUT_MS = 1_000;
// How often sync() asks whether the log is flushed: the WAL writer flushes commits made with synchronous_commit off
// every wal_writer_delay (200 ms by default).
const SYNC_POLL_MS = 10;

// PostgreSQL's types as SQLite gives them to the callers (store/store.ts): 64-bit and decimal numbers as numbers (SUM
// of a bigint is numeric), booleans as 1 and 0. Text stays text: the schema keeps times and JSON as text.
const INT8 = 20;
const NUMERIC = 1700;
const BOOL = 16;

/** StoreError is a statement PostgreSQL refused or did not answer in time; `code` is its SQLSTATE when it gave one. */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

interface Prepared {
  text: string;
  names: string[];
}

type Result = Row[] & { count?: number; command?: string; columns?: Array<{ name: string; type: number }> | null };

// Tagged templates: Bun prepares them as it does statements with parameters, and a statement without parameters
// written as text would go as a simple query, a round trip of its own (PostgresStore.send).
const CONTROL = {
  BEGIN: (c: SQL) => c`BEGIN`,
  COMMIT: (c: SQL) => c`COMMIT`,
  ROLLBACK: (c: SQL) => c`ROLLBACK`,
};

/** PgTx is one transaction's handle on its reserved connection. */
class PgTx implements Tx {
  readonly engine = "postgres";
  open = true;
  readonly notified = new Set<Channel>();
  readonly ended: ((committed: boolean) => void)[] = [];
  /** The statements sent with `write`, whose answers the commit waits for. */
  readonly written: Promise<Result>[] = [];
  private depth = 0;

  constructor(
    private readonly store: PostgresStore,
    private readonly connection: ReservedSQL,
  ) {}

  async get<T = Row>(sql: string, params: Params = {}): Promise<T | null> {
    return ((await this.query(sql, params))[0] as T | undefined) ?? null;
  }

  async all<T = Row>(sql: string, params: Params = {}): Promise<T[]> {
    return (await this.query(sql, params)) as T[];
  }

  async run(sql: string, params: Params = {}): Promise<number> {
    return (await this.query(sql, params)).count ?? 0;
  }

  write(sql: string, params: Params = {}): void {
    const sent = this.query(sql, params);
    // Its failure is answered by the commit, or by tx() when the body fails first; never left unhandled.
    sent.catch(() => {});
    this.written.push(sent);
  }

  async savepoint<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const name = `s${this.depth++}`;
    // The writes sent inside the savepoint are its own: answered before it is released, and forgotten by the
    // transaction when it is rolled back, so that their failure fails the savepoint alone.
    const mark = this.written.length;
    await this.command(`SAVEPOINT ${name}`);
    try {
      const result = await fn(this);
      await Promise.all(this.written.slice(mark));
      await this.command(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (e) {
      const failed = await firstRejection(this.written.splice(mark));
      await this.command(`ROLLBACK TO SAVEPOINT ${name}`);
      throw failed ?? e;
    } finally {
      this.depth--;
    }
  }

  notify(channel: Channel): void {
    this.notified.add(channel);
  }

  onEnd(fn: (committed: boolean) => void): void {
    this.ended.push(fn);
  }

  command(text: string): Promise<unknown> {
    return this.store.send(this.connection, text, []);
  }

  /** control sends BEGIN, COMMIT or ROLLBACK as a prepared statement, so it travels with the statements beside it
   * (`pipelined`). */
  control(which: keyof typeof CONTROL): Promise<Result> {
    return this.store.pipelined(() => CONTROL[which](this.connection));
  }

  /** setting sets a server setting for this transaction only, in the same round trip as the statements beside it. */
  setting(name: string, value: string): Promise<Result> {
    return this.store.statement(this.connection, "SELECT set_config($name, $value, true) AS value", { name, value });
  }

  private query(sql: string, params: Params): Promise<Result> {
    if (!this.open) throw new StoreError("a statement was sent on a transaction that has ended: use the store, or the handle of an open transaction");
    return this.store.statement(this.connection, sql, params);
  }
}

/**
 * PostgresStore: statements outside a transaction go to the pool, so independent requests' statements overlap; a
 * transaction reserves a connection of its own for its body. Nothing is locked beyond what a statement locks: the
 * rules that need more take the rows they need (`FOR UPDATE`, docs/scale-out.md "Locks").
 */
export class PostgresStore implements Store {
  readonly engine = "postgres";
  private readonly sql: SQL;
  /** One connection of its own for `ping`: on the pool, /health's query waited behind the renders' statements queued
   * on every connection (its p99 at +2 ms was 27–34 ms under load). */
  private readonly pinger: SQL;
  private readonly prepared = new Map<string, Prepared>();
  private readonly listeners = new Listeners();
  private readonly subscribed = new Set<Channel>();
  /** The payload of this store's NOTIFYs: its own come back to it too, and its listeners were woken at the commit. */
  private readonly sender = randomBase62(16);

  private constructor(url: string) {
    const connection = {
      application_name: "renderd",
      statement_timeout: STATEMENT_TIMEOUT_MS,
      lock_timeout: LOCK_TIMEOUT_MS,
      idle_in_transaction_session_timeout: IDLE_IN_TX_MS,
    };
    this.sql = new SQL(url, { max: POOL, bigint: true, connection });
    this.pinger = new SQL(url, { max: 1, connection });
  }

  /** open connects to `url` and answers the store once the server has answered a query. */
  static async open(url: string): Promise<PostgresStore> {
    const store = new PostgresStore(url);
    try {
      await store.get("SELECT 1 AS ok");
    } catch (e) {
      await Promise.all([store.sql.close({ timeout: 0 }), store.pinger.close({ timeout: 0 })]);
      throw new StoreError(`the PostgreSQL store did not start: ${(e as Error).message}`, (e as StoreError).code);
    }
    return store;
  }

  async tx<T>(fn: (tx: Tx) => Promise<T>, options: TxOptions = {}): Promise<T> {
    let connection: ReservedSQL;
    try {
      connection = await this.sql.reserve();
    } catch (e) {
      throw storeError(e);
    }
    const tx = new PgTx(this, connection);
    try {
      // BEGIN is not awaited alone: it travels with the body's first statements, and a failure shows at them.
      const begin = Promise.all([tx.control("BEGIN"), options.durable === false ? tx.setting("synchronous_commit", "off") : undefined]);
      begin.catch(() => {});
      const result = await fn(tx);
      // NOTIFY is delivered to every listening process when the transaction commits (this one's too): it goes out with
      // the COMMIT, in the same round trip.
      const notified = [...tx.notified].map((channel) => this.statement(connection, "SELECT pg_notify($channel, $sender) AS sent", { channel: `renderd_${channel}`, sender: this.sender }));
      const [, , , committed] = await Promise.all([begin, Promise.all(tx.written), Promise.all(notified), tx.control("COMMIT")]);
      // PostgreSQL answers COMMIT of a transaction one of whose statements failed with ROLLBACK, not an error: a body
      // that caught a statement's failure outside a savepoint must not be told its writes were kept.
      if (committed.command !== "COMMIT") throw new StoreError("the transaction was rolled back: one of its statements failed (catch a statement's failure inside tx.savepoint to go on after it)");
      for (const fn of tx.ended) fn(true);
      if (tx.notified.size > 0) this.listeners.wake(tx.notified);
      return result;
    } catch (e) {
      // A connection that is gone took its transaction with it, and its own error would only hide why.
      await tx.control("ROLLBACK").catch(() => {});
      for (const fn of tx.ended) fn(false);
      // A write that failed is the cause of whatever failed after it: PostgreSQL refuses every statement of a
      // transaction after a failed one.
      throw (await firstRejection(tx.written)) ?? e;
    } finally {
      tx.open = false;
      void connection.release();
    }
  }

  async get<T = Row>(sql: string, params: Params = {}): Promise<T | null> {
    return ((await this.statement(this.sql, sql, params))[0] as T | undefined) ?? null;
  }

  async all<T = Row>(sql: string, params: Params = {}): Promise<T[]> {
    return (await this.statement(this.sql, sql, params)) as T[];
  }

  /** listen also subscribes to the channel's NOTIFY (one dedicated connection for all channels, reconnected by Bun),
   * so a transaction committed by another process wakes `fn` too; the caller's slow poll covers a notification lost
   * while that connection was down. */
  listen(channel: Channel, fn: () => void): () => void {
    const remove = this.listeners.add(channel, fn);
    if (!this.subscribed.has(channel)) {
      this.subscribed.add(channel);
      const wake = (sender: string) => {
        if (sender !== this.sender) this.listeners.wake([channel]);
      };
      this.sql.listen(`renderd_${channel}`, wake).catch(() => this.subscribed.delete(channel));
    }
    return remove;
  }

  /** sync waits until the server's log is flushed past everything inserted into it so far, this process's commits made
   * with synchronous_commit off among them. */
  async sync(): Promise<void> {
    const { lsn } = (await this.get<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn"))!;
    const deadline = Date.now() + STATEMENT_TIMEOUT_MS;
    while (!(await this.get<{ flushed: number }>("SELECT pg_current_wal_flush_lsn() >= $lsn::pg_lsn AS flushed", { lsn }))!.flushed) {
      if (Date.now() > deadline) throw new StoreError("the PostgreSQL server did not flush its log in time");
      await Bun.sleep(SYNC_POLL_MS);
    }
  }

  async ping(): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS)));
    try {
      return await Promise.race([this.pinger.unsafe("SELECT 1 AS ok", []).then((rows: Row[]) => rows.length === 1, () => false), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.sql.close({ timeout: 1 }), this.pinger.close({ timeout: 1 })]);
  }

  /** statement runs `sql` with its named parameters on `on` (the pool, or a transaction's connection). */
  statement(on: SQL, sql: string, params: Params): Promise<Result> {
    const { text, names } = this.prepare(sql);
    const values = names.map((name) => {
      if (!(name in params)) throw new StoreError(`statement parameter $${name} has no value`);
      const value = params[name];
      // SQLite stores booleans as 1 and 0 and the schema's flags are INTEGER columns: the same here.
      return typeof value === "boolean" ? (value ? 1 : 0) : value;
    });
    return this.send(on, text, values);
  }

  /** send runs `text` (`$1…` parameters) on `on` and answers its rows with SQLite's types. Without parameters it goes
   * as a simple query, which Bun sends only once every statement before it has answered, and which holds back every
   * statement after it: one round trip of its own. */
  send(on: SQL, text: string, values: unknown[]): Promise<Result> {
    return this.pipelined(() => {
      const query = on.unsafe(text, values);
      return values.length === 0 && text.includes(";") ? query.simple() : query;
    });
  }

  /** pipelined sends the query `make` makes and answers its rows with SQLite's types, or a StoreError. A prepared
   * statement (one with parameters, or a tagged template) that the connection has prepared before goes out without
   * waiting for the answers before it: statements issued together share one round trip. */
  async pipelined(make: () => Promise<unknown>): Promise<Result> {
    try {
      return normalise((await make()) as Result);
    } catch (e) {
      throw storeError(e);
    }
  }

  /** prepare rewrites `$name` parameters to PostgreSQL's `$1, $2…` once per statement text (quoted text is left alone). */
  private prepare(sql: string): Prepared {
    let prepared = this.prepared.get(sql);
    if (prepared) return prepared;
    const names: string[] = [];
    const text = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, name: string | undefined) => {
      if (name === undefined) return match;
      let index = names.indexOf(name);
      if (index < 0) index = names.push(name) - 1;
      return `$${index + 1}`;
    });
    prepared = { text, names };
    if (this.prepared.size > 500) this.prepared.clear();
    this.prepared.set(sql, prepared);
    return prepared;
  }
}

/** firstRejection answers the reason of the first of `promises` that rejected, once all have settled; undefined if none did. */
async function firstRejection(promises: Promise<unknown>[]): Promise<unknown> {
  for (const outcome of await Promise.allSettled(promises)) if (outcome.status === "rejected") return outcome.reason;
  return undefined;
}

function normalise(rows: Result): Result {
  const convert = (rows.columns ?? []).filter((c) => c.type === INT8 || c.type === NUMERIC || c.type === BOOL);
  if (convert.length === 0) return rows;
  for (const row of rows)
    for (const { name, type } of convert) {
      const value = row[name];
      if (value === null || value === undefined) continue;
      row[name] = type === BOOL ? (value ? 1 : 0) : Number(value);
    }
  return rows;
}

function storeError(e: unknown): StoreError {
  if (e instanceof StoreError) return e;
  const err = e as { message?: string; errno?: string; code?: string };
  return new StoreError(err.message ?? String(e), err.errno ?? err.code);
}
