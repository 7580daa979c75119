/** store/postgres-store: the Store on PostgreSQL, shared by every renderd process of a scale-out (issue 15). */
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { Reply, Request, WorkerData } from "./postgres-wire";
import type { Params, Row, Store, TxOptions } from "./store";

// How long a statement may take before the caller is told the database does not answer: SQLite's busy_timeout is 5 s;
// here a lock wait behind another process's transaction and a network round trip both count.
const CALL_TIMEOUT_MS = 15_000;
const PING_TIMEOUT_MS = 1_000;
// How often sync() asks whether the log is flushed: the WAL writer flushes commits made with synchronous_commit off
// every wal_writer_delay (200 ms by default).
const SYNC_POLL_MS = 10;
/** The advisory lock every write transaction takes first: one writer at a time across all processes, SQLite's rule. */
const WRITER_LOCK = 0x72656e64; // "rend"

// The executable names every module's import.meta.url after itself (/$bunfs/root/renderd) and keeps the worker, an
// entrypoint of its own (scripts/build.ts), at its source path under that root.
const WORKER = import.meta.url.includes("/$bunfs/")
  ? new URL("./src/store/postgres-worker.ts", import.meta.url)
  : new URL("./postgres-worker.ts", import.meta.url);

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

/**
 * PostgresStore keeps the synchronous Store interface on an asynchronous client: each call posts the statement to a
 * worker thread (postgres-worker.ts) and blocks on a shared word until the answer comes. Blocking is the point, not a
 * shortcut: a transaction's body then runs with nothing interleaved, as on SQLite, and every rule written as "read,
 * then write, in one tx" (allowances, the fair claim, the webhook claims) holds across processes because each write
 * transaction first takes one advisory lock (WRITER_LOCK). docs/scale-out.md weighs the cost.
 */
export class PostgresStore implements Store {
  readonly engine = "postgres";
  private readonly worker: Worker;
  private readonly answered = new Int32Array(new SharedArrayBuffer(4));
  private readonly prepared = new Map<string, Prepared>();
  private depth = 0;
  private closed = false;

  constructor(url: string) {
    const data: WorkerData = { url, signal: this.answered.buffer as SharedArrayBuffer };
    this.worker = new Worker(WORKER, { workerData: data });
    // The worker must not keep a stopped server's process alive.
    this.worker.unref();
    // A worker that failed to load would answer nothing: say so now rather than at the first request.
    try {
      this.call({ op: "query", text: "SELECT 1 AS ok", params: [] }, CALL_TIMEOUT_MS);
    } catch (e) {
      void this.worker.terminate();
      throw new StoreError(`the PostgreSQL store did not start: ${(e as Error).message}`, (e as StoreError).code);
    }
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  tx<T>(fn: () => T, options: TxOptions = {}): T {
    const savepoint = `s${this.depth}`;
    if (this.depth === 0) {
      this.call({ op: "begin" });
      try {
        this.call({ op: "query", text: `SELECT pg_advisory_xact_lock(${WRITER_LOCK})`, params: [] });
        if (options.durable === false) this.call({ op: "query", text: "SET LOCAL synchronous_commit = off", params: [] });
      } catch (e) {
        this.undo();
        throw e;
      }
    } else this.call({ op: "savepoint", name: savepoint });
    this.depth++;
    let result: T;
    try {
      result = fn();
    } catch (e) {
      this.depth--;
      this.undo(this.depth === 0 ? undefined : savepoint);
      throw e;
    }
    this.depth--;
    if (this.depth > 0) this.call({ op: "release", name: savepoint });
    else {
      try {
        this.call({ op: "commit" });
      } catch (e) {
        this.undo();
        throw e;
      }
    }
    return result;
  }

  get<T = Row>(sql: string, params: Params = {}): T | null {
    return (this.query(sql, params).rows[0] as T | undefined) ?? null;
  }

  all<T = Row>(sql: string, params: Params = {}): T[] {
    return this.query(sql, params).rows as T[];
  }

  run(sql: string, params: Params = {}): number {
    return this.query(sql, params).count;
  }

  /** sync waits until the server's log is flushed past everything inserted into it so far, this process's commits made
   * with synchronous_commit off among them. */
  async sync(): Promise<void> {
    const { lsn } = this.get<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn")!;
    const deadline = Date.now() + CALL_TIMEOUT_MS;
    while (!this.get<{ flushed: number }>("SELECT pg_current_wal_flush_lsn() >= $lsn::pg_lsn AS flushed", { lsn })!.flushed) {
      if (Date.now() > deadline) throw new StoreError("the PostgreSQL server did not flush its log in time");
      await Bun.sleep(SYNC_POLL_MS);
    }
  }

  ping(): boolean {
    try {
      return this.call({ op: "query", text: "SELECT 1 AS ok", params: [] }, PING_TIMEOUT_MS).rows.length === 1;
    } catch {
      return false;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.call({ op: "close" }, PING_TIMEOUT_MS);
    } catch {
      // Closing anyway: the worker's connections go with it.
    }
    void this.worker.terminate();
  }

  /** undo rolls the open transaction back (to `savepoint` when given) after an error, which stays the one thrown: a
   * connection that is gone took its transaction with it, and its own error would only hide why. */
  private undo(savepoint?: string): void {
    try {
      this.call(savepoint === undefined ? { op: "rollback" } : { op: "rollback-to", name: savepoint });
    } catch {
      // Said above: the caller throws the first error.
    }
  }

  private query(sql: string, params: Params): { rows: Row[]; count: number } {
    const { text, names } = this.prepare(sql);
    const values = names.map((name) => {
      if (!(name in params)) throw new StoreError(`statement parameter $${name} has no value`);
      const value = params[name];
      // SQLite stores booleans as 1 and 0 and the schema's flags are INTEGER columns: the same here.
      return typeof value === "boolean" ? (value ? 1 : 0) : value;
    });
    return this.call({ op: "query", text, params: values });
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

  private call(request: Request, timeoutMs = CALL_TIMEOUT_MS): { rows: Row[]; count: number } {
    if (this.closed && request.op !== "close") throw new StoreError("the store is closed");
    const { port1, port2 } = new MessageChannel();
    const seen = Atomics.load(this.answered, 0);
    this.worker.postMessage({ port: port2, request }, [port2]);
    const deadline = performance.now() + timeoutMs;
    let reply: Reply | undefined;
    // Each call has its own port, so a late answer to an earlier call that timed out cannot be taken for this one; it
    // only wakes the wait, which then looks again.
    for (let last = seen; ; ) {
      reply = receiveMessageOnPort(port1)?.message as Reply | undefined;
      if (reply) break;
      const left = deadline - performance.now();
      if (left <= 0 || Atomics.wait(this.answered, 0, last, left) === "timed-out") {
        reply = receiveMessageOnPort(port1)?.message as Reply | undefined;
        if (reply) break;
        port1.close();
        throw new StoreError(`the database did not answer within ${timeoutMs} ms`);
      }
      last = Atomics.load(this.answered, 0);
    }
    port1.close();
    if (!reply.ok) throw new StoreError(reply.message, reply.code);
    return reply;
  }
}
