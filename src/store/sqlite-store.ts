/** store/sqlite-store: the one SQLite connection, its pragmas and write transactions (DESIGN.md 1). */
import { Database, type Statement } from "bun:sqlite";
import { existsSync } from "node:fs";
import { fsyncOffLoop } from "./files-staging";
import type { Params, Row, Store, TxOptions } from "./store";

// Far above the statement texts the code has; only SQL built per call (a list of $r0, $r1… parameters) adds more.
const MAX_STATEMENTS = 500;

/** SqliteStore wraps the SQLite file; every write goes through `tx` so a change and its audit row commit together. */
export class SqliteStore implements Store {
  readonly engine = "sqlite";
  readonly db: Database;
  readonly path: string;
  /**
   * Prepared statements by SQL text. bun:sqlite's own cache (`db.query`) keeps 20 (Database.MAX_QUERY_CACHE_SIZE),
   * fewer than one render's cycle uses, so it was preparing most statements again on every render
   * (docs/performance.md, "Close to the floor: second pass").
   */
  private readonly statements = new Map<string, Statement>();

  constructor(path: string) {
    this.path = path;
    this.db = new Database(path, { create: true, strict: true });
    // busy_timeout first so the WAL switch itself waits for another process (the CLI) instead of failing.
    this.db.run("PRAGMA busy_timeout = 5000");
    this.db.run("PRAGMA journal_mode = WAL");
    // A revoked key or an acknowledged render must survive a power cut; our write rate is low.
    this.db.run("PRAGMA synchronous = FULL");
    this.db.run("PRAGMA foreign_keys = ON");
  }

  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /** tx runs `fn` in one IMMEDIATE transaction; `fn` must not await (bun:sqlite is synchronous). */
  tx<T>(fn: () => T, options: TxOptions = {}): T {
    if (options.durable !== false || this.db.inTransaction) return this.db.transaction(fn).immediate();
    // In WAL mode a NORMAL commit appends to the log without syncing it; the next FULL commit syncs the log, this
    // commit's frames included.
    this.statement("PRAGMA synchronous = NORMAL").run();
    try {
      return this.db.transaction(fn).immediate();
    } finally {
      this.statement("PRAGMA synchronous = FULL").run();
    }
  }

  /** sync flushes the write-ahead log, where a NORMAL commit left its frames unsynced; the database file itself is
   * written only by checkpoints, which sync the log first. */
  async sync(): Promise<void> {
    const wal = `${this.path}-wal`;
    if (existsSync(wal)) await fsyncOffLoop(wal);
  }

  /** get answers the first row of a query, or null. */
  get<T = Row>(sql: string, params: Params = {}): T | null {
    return (this.statement(sql).get(params) as T | null) ?? null;
  }

  /** all answers every row of a query. */
  all<T = Row>(sql: string, params: Params = {}): T[] {
    return this.statement(sql).all(params) as T[];
  }

  /** run executes a statement and answers the number of rows it changed. */
  run(sql: string, params: Params = {}): number {
    return this.statement(sql).run(params).changes;
  }

  /** statement answers the prepared statement of `sql`, prepared once; past MAX_STATEMENTS texts (SQL built with a
   * variable number of parameters) the cache starts again. */
  statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement) return statement;
    if (this.statements.size >= MAX_STATEMENTS) this.forgetStatements();
    statement = this.db.prepare(sql);
    this.statements.set(sql, statement);
    return statement;
  }

  /** ping tells whether the store answers a query (GET /health). */
  ping(): boolean {
    try {
      return this.db.query("SELECT 1 AS ok").get() !== null;
    } catch {
      return false;
    }
  }

  close(): void {
    this.forgetStatements();
    this.db.close(false);
  }

  private forgetStatements(): void {
    for (const statement of this.statements.values()) statement.finalize();
    this.statements.clear();
  }
}
