/** backup/to-postgres: `renderd migrate --to-postgres` — one appliance's SQLite store and files copied into PostgreSQL
 * and a bucket (docs/scale-out.md "Moving an appliance"). The rows come from a snapshot (VACUUM INTO, as backups do), the
 * files go first (content-addressed: a copy stopped midway leaves only harmless objects), then the rows in one
 * transaction, so PostgreSQL holds all of the store or none of it. */
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../config";
import type { Clock } from "../lib/clock";
import { copyFiles, type FileRef, type FilesCopied } from "../store/copy-files";
import { copyRows, databaseAddress, refuseHeld, tablesInKeyOrder } from "../store/copy-rows";
import { contentKey, type FileArea, type FileStore } from "../store/files";
import { storeHolders } from "../store/holders";
import { migratePostgres } from "../store/migrate-postgres";
import { referencedFiles, takeSnapshot, unspool } from "./snapshot";

/** ToPostgres is what the copy needs: the store, its files, the target, and whether to replace what the target holds. */
export interface ToPostgres {
  dataDir: string;
  storePath: string;
  databaseUrl: string;
  from: FileStore;
  to: FileStore;
  replace: boolean;
  clock: Clock;
  progress: Progress;
}

/** Progress hears each step as it ends; the CLI words it (never with a secret). */
export interface Progress {
  migrated(database: string, applied: string[]): void;
  files(done: number, total: number, bytes: number): void;
  missing(path: string): void;
  table(name: string, rows: number): void;
}

/** Moved is what the copy did. */
export interface Moved {
  database: string;
  migrations: string[];
  rows: Record<string, number>;
  files: FilesCopied;
}

/** migrateToPostgres copies the store behind `storePath` and the files it references into the target; it refuses while another process holds the store. */
export async function migrateToPostgres(o: ToPostgres): Promise<Moved> {
  const database = checkedAddress(o.databaseUrl);
  const holders = storeHolders(o.storePath);
  if (holders.length)
    throw new ConfigError(`${o.storePath} is open in process ${holders.join(", ")} (renderd serve?): stop it first, so that no row written after the copy is lost.`);
  mkdirSync(join(o.dataDir, "tmp"), { recursive: true });
  const stage = mkdtempSync(join(o.dataDir, "tmp", "to-postgres-"));
  const sql = new SQL(o.databaseUrl);
  try {
    const snapshot = join(stage, "renderd.db");
    takeSnapshot(o.storePath, snapshot);
    const spooled = unspool(snapshot);
    const db = new Database(snapshot, { readonly: true, strict: true });
    try {
      const migrations = await migratePostgres(sql, o.clock).catch(failed(`${database}: applying the PostgreSQL migrations failed`));
      o.progress.migrated(database, migrations);
      const copy = { replace: o.replace, where: database, onTable: o.progress.table };
      // Refused before any byte is sent; checked again inside the copy's transaction.
      await refuseHeld(sql, tablesInKeyOrder(db), copy);
      // The PDFs the store held spooled (a serve stopped before writing them) are copied from the snapshot as files.
      const inSpool = new Map(spooled.map((s) => [s.path, s.bytes]));
      const refs = referencedFiles(db).map((path) => ({ ...fileRef(path), bytes: inSpool.get(path) }));
      const files = await copyFiles(o.from, o.to, refs, o.progress.files).catch(failed("copying the files to the bucket failed, no row was written to PostgreSQL"));
      for (const m of files.missing) o.progress.missing(contentKey(m.area, m.sha256));
      const rows = await copyRows(db, sql, copy).catch(failed("copying the rows failed and was rolled back"));
      return { database, migrations, rows, files };
    } finally {
      db.close(false);
    }
  } finally {
    await sql.close();
    rmSync(stage, { recursive: true, force: true });
  }
}

// The URL itself is never echoed: it may hold the password.
function checkedAddress(url: string): string {
  const refused = new ConfigError("DATABASE_URL is not allowed: use a postgres:// or postgresql:// URL.");
  if (!/^postgres(ql)?:\/\//.test(url)) throw refused;
  try {
    return databaseAddress(url);
  } catch {
    throw refused;
  }
}

// A refusal (ConfigError) is already one clear line; any other failure is told with the state it leaves.
function failed(what: string): (e: unknown) => never {
  return (e) => {
    if (e instanceof ConfigError) throw e;
    throw new Error(`${what}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  };
}

// referencedFiles names archive paths, `<area>/ab/cd/<sha256>`.
function fileRef(path: string): FileRef {
  const parts = path.split("/");
  return { area: parts[0] as FileArea, sha256: parts.at(-1)! };
}
