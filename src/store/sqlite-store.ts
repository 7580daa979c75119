/** store/sqlite-store: the SQLite file, its pragmas and write transactions (DESIGN.md 1). */
import { Database, type Statement } from "bun:sqlite";
import { existsSync } from "node:fs";
import { fsyncOffLoop } from "./files-staging";
import { Listeners } from "./listeners";
import type { Channel, Params, Row, Store, Tx, TxOptions } from "./store";

/** WRITER_WAIT_MS is how long a transaction waits for the writer (SQLite's busy_timeout for other processes). */
export const WRITER_WAIT_MS = 5_000;
// Far above the statement texts the code has; only SQL built per call (a list of $r0, $r1… parameters) adds more.
const MAX_STATEMENTS = 500;
// SQLite's write transactions take turns, so a row lock would add nothing: the portable text's lock clauses are dropped.
const ROW_LOCK = /\s+FOR\s+(?:NO\s+KEY\s+)?UPDATE(?:\s+OF\s+\w+)?(?:\s+SKIP\s+LOCKED)?\b/gi;

/** Statements prepares each SQL text once on one connection. bun:sqlite's own cache (`db.query`) keeps 20
 * (Database.MAX_QUERY_CACHE_SIZE), fewer than one render's cycle uses, so it was preparing most statements again on
 * every render (docs/performance.md, "Close to the floor: second pass"). */
class Statements {
  private readonly cache = new Map<string, Statement>();

  constructor(private readonly db: Database) {}

  /** of answers the prepared statement of `sql`; past MAX_STATEMENTS texts (SQL built with a variable number of
   * parameters) the cache starts again. */
  of(sql: string): Statement {
    let statement = this.cache.get(sql);
    if (statement) return statement;
    if (this.cache.size >= MAX_STATEMENTS) this.clear();
    statement = this.db.prepare(sql.replace(ROW_LOCK, ""));
    this.cache.set(sql, statement);
    return statement;
  }

  clear(): void {
    for (const statement of this.cache.values()) statement.finalize();
    this.cache.clear();
  }
}

/** SqliteTx is one write transaction's handle on the writer connection; it refuses statements once its transaction ended. */
class SqliteTx implements Tx {
  readonly engine = "sqlite";
  open = true;
  readonly notified = new Set<Channel>();
  readonly ended: ((committed: boolean) => void)[] = [];
  private depth = 0;

  constructor(private readonly statements: Statements) {}

  async get<T = Row>(sql: string, params: Params = {}): Promise<T | null> {
    return (this.statement(sql).get(params) as T | null) ?? null;
  }

  async all<T = Row>(sql: string, params: Params = {}): Promise<T[]> {
    return this.statement(sql).all(params) as T[];
  }

  async run(sql: string, params: Params = {}): Promise<number> {
    return this.statement(sql).run(params).changes;
  }

  write(sql: string, params: Params = {}): void {
    this.statement(sql).run(params);
  }

  async savepoint<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const name = `s${this.depth++}`;
    this.statement(`SAVEPOINT ${name}`).run();
    try {
      const result = await fn(this);
      this.statement(`RELEASE ${name}`).run();
      return result;
    } catch (e) {
      this.statement(`ROLLBACK TO ${name}`).run();
      this.statement(`RELEASE ${name}`).run();
      throw e;
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

  private statement(sql: string): Statement {
    if (!this.open) throw new Error("a statement was sent on a transaction that has ended: use the store, or the handle of an open transaction");
    return this.statements.of(sql);
  }
}

/**
 * SqliteStore holds two connections to the file: the writer, where write transactions take turns (a body may await
 * between its statements, so the next transaction waits for the turn, first come first served), and a read-only
 * reader for statements outside any transaction, which sees what has been committed and never another request's open
 * transaction (WAL lets it read while the writer writes). A write sent outside a transaction fails on the reader.
 */
export class SqliteStore implements Store {
  readonly engine = "sqlite";
  /** The writer connection. */
  readonly db: Database;
  readonly path: string;
  private readonly reader: Database;
  private readonly writes: Statements;
  private readonly reads: Statements;
  private busy = false;
  private readonly waiting: Array<() => void> = [];
  private readonly listeners = new Listeners();

  constructor(path: string) {
    this.path = path;
    this.db = new Database(path, { create: true, strict: true });
    // busy_timeout first so the WAL switch itself waits for another process (the CLI) instead of failing.
    this.db.run("PRAGMA busy_timeout = 5000");
    this.db.run("PRAGMA journal_mode = WAL");
    // A revoked key or an acknowledged render must survive a power cut; our write rate is low.
    this.db.run("PRAGMA synchronous = FULL");
    this.db.run("PRAGMA foreign_keys = ON");
    this.reader = new Database(path, { readonly: true, strict: true });
    this.reader.run("PRAGMA busy_timeout = 5000");
    this.writes = new Statements(this.db);
    this.reads = new Statements(this.reader);
  }

  /** tx runs `fn` in one IMMEDIATE transaction once the writer is free. */
  async tx<T>(fn: (tx: Tx) => Promise<T>, options: TxOptions = {}): Promise<T> {
    if (this.busy) await this.turn();
    else this.busy = true;
    try {
      return await this.write(fn, options.durable !== false);
    } finally {
      // The turn passes straight to the next waiter, so none can be overtaken by a newcomer.
      const next = this.waiting.shift();
      if (next) next();
      else this.busy = false;
    }
  }

  /** turn resolves when the writer passes to this transaction; it fails after WRITER_WAIT_MS, like busy_timeout for
   * another process's writer (a body that opened a second `tx` would otherwise wait for itself for ever). */
  private turn(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(take), 1);
        reject(new Error(`waited ${WRITER_WAIT_MS} ms for the store's writer: a transaction is open that long (or one opened inside another)`));
      }, WRITER_WAIT_MS);
      const take = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiting.push(take);
    });
  }

  private async write<T>(fn: (tx: Tx) => Promise<T>, durable: boolean): Promise<T> {
    // In WAL mode a NORMAL commit appends to the log without syncing it; the next FULL commit syncs the log, this
    // commit's frames included.
    if (!durable) this.writes.of("PRAGMA synchronous = NORMAL").run();
    const tx = new SqliteTx(this.writes);
    try {
      this.writes.of("BEGIN IMMEDIATE").run();
      try {
        const result = await fn(tx);
        this.writes.of("COMMIT").run();
        for (const fn of tx.ended) fn(true);
        if (tx.notified.size > 0) this.listeners.wake(tx.notified);
        return result;
      } catch (e) {
        if (this.db.inTransaction) this.writes.of("ROLLBACK").run();
        for (const fn of tx.ended) fn(false);
        throw e;
      }
    } finally {
      tx.open = false;
      if (!durable) this.writes.of("PRAGMA synchronous = FULL").run();
    }
  }

  listen(channel: Channel, fn: () => void): () => void {
    return this.listeners.add(channel, fn);
  }

  /** sync flushes the write-ahead log, where a NORMAL commit left its frames unsynced; the database file itself is
   * written only by checkpoints, which sync the log first. */
  async sync(): Promise<void> {
    const wal = `${this.path}-wal`;
    if (existsSync(wal)) await fsyncOffLoop(wal);
  }

  async get<T = Row>(sql: string, params: Params = {}): Promise<T | null> {
    return (this.reads.of(sql).get(params) as T | null) ?? null;
  }

  async all<T = Row>(sql: string, params: Params = {}): Promise<T[]> {
    return this.reads.of(sql).all(params) as T[];
  }

  /** statement answers the prepared statement a read outside a transaction runs for `sql`, prepared once. */
  statement(sql: string): Statement {
    return this.reads.of(sql);
  }

  /** ping asks both connections: a read inside the writer's open transaction, if any, changes nothing. */
  async ping(): Promise<boolean> {
    try {
      return this.reader.query("SELECT 1 AS ok").get() !== null && this.db.query("SELECT 1 AS ok").get() !== null;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.reads.clear();
    this.writes.clear();
    this.reader.close(false);
    this.db.close(false);
  }
}
