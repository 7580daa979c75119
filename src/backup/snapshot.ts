/** backup/snapshot: the consistent copy of the SQLite store a backup is built around, and the checks run on it. */
import { Database } from "bun:sqlite";
import { contentKey } from "../store/files";

/** MigrationLevel is the newest migration a store has applied. */
export interface MigrationLevel {
  version: number;
  name: string;
}

/** takeSnapshot writes a consistent copy of the live store at `dbPath` into `into` with VACUUM INTO: one read
 * transaction, so a running serve keeps writing (WAL) and the copy is the store as of one instant. */
export function takeSnapshot(dbPath: string, into: string): void {
  const db = new Database(dbPath, { readonly: true, strict: true });
  try {
    db.run("PRAGMA busy_timeout = 5000");
    db.query("VACUUM INTO $into").run({ into });
  } finally {
    db.close(false);
  }
}

/** withReadOnly opens a store (a snapshot, or DATA_DIR's store for doctor) read-only, runs `fn` on it and closes it; a file that is no SQLite store throws one line. */
export function withReadOnly<T>(path: string, fn: (db: Database) => T): T {
  let db: Database;
  try {
    db = new Database(path, { readonly: true, strict: true });
  } catch (e) {
    throw new Error(`the store does not open as SQLite: ${(e as Error).message}.`);
  }
  try {
    return fn(db);
  } finally {
    db.close(false);
  }
}

/** checkIntegrity runs `PRAGMA integrity_check` (or the faster quick_check) and answers its problems; [] when the store is sound. */
export function checkIntegrity(db: Database, pragma: "integrity_check" | "quick_check" = "integrity_check"): string[] {
  try {
    const rows = db.query(`PRAGMA ${pragma}`).values() as [string][];
    const problems = rows.map((r) => String(r[0]));
    return problems.length === 1 && problems[0] === "ok" ? [] : problems;
  } catch (e) {
    return [(e as Error).message];
  }
}

/** migrationLevel answers the store's newest applied migration ({0, ""} for a store never migrated). */
export function migrationLevel(db: Database): MigrationLevel {
  if (!db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get()) return { version: 0, name: "" };
  const row = db.query("SELECT version, name FROM schema_migrations ORDER BY version DESC LIMIT 1").get() as MigrationLevel | null;
  return row ?? { version: 0, name: "" };
}

/** referencedFiles answers the archive paths of every file the snapshot points at: uploaded assets' bytes, succeeded
 * renders' PDFs and the further PDFs of operations (a split's parts). Page images are left out: they are drawn again
 * when asked for (docs/pdf.md "Page images"). */
export function referencedFiles(db: Database): string[] {
  const tables = new Set((db.query("SELECT name FROM sqlite_master WHERE type = 'table'").values() as [string][]).map((r) => r[0]));
  const shas = (table: string, sql: string) => (tables.has(table) ? (db.query(sql).values() as [string][]).map((r) => r[0]) : []);
  return [
    ...shas("assets", "SELECT DISTINCT sha256 FROM assets WHERE status = 'uploaded' ORDER BY sha256").map((s) => contentKey("assets", s)),
    ...shas("renders", "SELECT DISTINCT output_sha256 FROM renders WHERE output_sha256 IS NOT NULL ORDER BY output_sha256").map((s) => contentKey("outputs", s)),
    ...shas("render_outputs", "SELECT DISTINCT sha256 FROM render_outputs WHERE part > 0 ORDER BY sha256").map((s) => contentKey("outputs", s)),
  ];
}

/** SpooledOutput is a PDF a snapshot holds in output_spool (store/output-spool.ts), its file not written yet. */
export interface SpooledOutput {
  /** Its archive path, `outputs/ab/cd/<sha256>`. */
  path: string;
  bytes: Uint8Array;
}

/** unspool takes the spooled PDFs out of a snapshot — a copy, never the live store — and answers them, so that whoever
 * copies the snapshot's files writes them as files: an archive or a migrated store holds every PDF as a file, whichever
 * way the live store held it at the snapshot's instant. */
export function unspool(snapshot: string): SpooledOutput[] {
  const db = new Database(snapshot, { strict: true });
  try {
    if (!db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'output_spool'").get()) return [];
    const rows = db.query("SELECT sha256, bytes FROM output_spool ORDER BY sha256").all() as { sha256: string; bytes: Uint8Array }[];
    db.run("DELETE FROM output_spool");
    return rows.map(({ sha256, bytes }) => ({ path: contentKey("outputs", sha256), bytes }));
  } finally {
    db.close(false);
  }
}
