/** store/postgres-wire: what postgres-store.ts (the caller's thread) and postgres-worker.ts (the thread that holds the
 * connections) send each other. */
import type { Row } from "./store";

/** WorkerData starts the worker: the database and the shared word it bumps after each answer. */
export interface WorkerData {
  url: string;
  signal: SharedArrayBuffer;
}

/** Request is one step: a statement (in the open transaction, if any), or a transaction's edge. */
export type Request =
  | { op: "query"; text: string; params: unknown[] }
  | { op: "begin" | "commit" | "rollback" | "close" }
  | { op: "savepoint" | "release" | "rollback-to"; name: string };

/** Reply is a statement's rows and changed-row count, or the error PostgreSQL gave (SQLSTATE in `code`). */
export type Reply = { ok: true; rows: Row[]; count: number } | { ok: false; message: string; code?: string };
