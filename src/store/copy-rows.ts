/** store/copy-rows: copies every row of a SQLite store into a migrated PostgreSQL database in one transaction
 * (`renderd migrate --to-postgres`, docs/scale-out.md): all of it commits, or nothing does. */
import type { Database } from "bun:sqlite";
import type { SQL } from "bun";
import { ConfigError } from "../config";

// schema_migrations is PostgreSQL's own (migratePostgres writes it); the rest is renderd's data.
const OWN_TABLES = new Set(["schema_migrations"]);
// Rows per INSERT: well under PostgreSQL's 65535 parameters for renderd's widest table.
const BATCH = 500;

/** CopyOptions says what to do with a database that already holds rows, and who hears the progress. */
export interface CopyOptions {
  /** replace: empty the target's tables first, in the same transaction; else a target holding any row is refused. */
  replace: boolean;
  /** where: how to name the target in a refusal (never with its password). */
  where: string;
  onTable?: (table: string, rows: number) => void;
}

/** tablesInKeyOrder answers the store's data tables, each after every table its foreign keys point at (read from the schema). */
export function tablesInKeyOrder(db: Database): string[] {
  const names = (db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").values() as [string][])
    .map((r) => r[0])
    .filter((n) => !OWN_TABLES.has(n));
  const parents = new Map(names.map((n) => [n, (db.query(`PRAGMA foreign_key_list("${n}")`).all() as { table: string }[]).map((f) => f.table).filter((t) => t !== n)]));
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (ordered.includes(name)) return;
    if (visiting.has(name)) throw new Error(`the foreign keys of ${name} form a cycle: no insert order exists`);
    visiting.add(name);
    for (const parent of parents.get(name) ?? []) visit(parent);
    visiting.delete(name);
    ordered.push(name);
  };
  for (const name of names) visit(name);
  return ordered;
}

/** copyRows inserts every row of `db`'s data tables into `sql` (migrated to the same version) in one transaction and answers the rows per table. */
export async function copyRows(db: Database, sql: SQL, options: CopyOptions): Promise<Record<string, number>> {
  const tables = tablesInKeyOrder(db);
  const counts: Record<string, number> = {};
  await sql.begin(async (tx) => {
    const held = await refuseHeld(tx, tables, options);
    // TRUNCATE is transactional in PostgreSQL: a failure below brings the old rows back.
    if (held) await tx.unsafe(`TRUNCATE ${tables.map((t) => `"${t}"`).join(", ")}`);
    for (const table of tables) {
      counts[table] = 0;
      // safeIntegers: an INTEGER past 2^53 (byte counts, limits) reaches bigint whole.
      const select = db.query(`SELECT * FROM "${table}" ORDER BY rowid`).safeIntegers(true);
      let batch: Record<string, unknown>[] = [];
      const flush = async () => {
        if (batch.length) await tx`INSERT INTO ${tx(table)} ${tx(batch)}`;
        counts[table] += batch.length;
        batch = [];
      };
      for (const row of select.iterate() as IterableIterator<Record<string, unknown>>) {
        batch.push(row);
        if (batch.length === BATCH) await flush();
      }
      await flush();
      options.onTable?.(table, counts[table]);
    }
  });
  return counts;
}

/** refuseHeld throws (ConfigError) when a table of `tables` holds a row and `replace` is off; it answers whether one does. */
export async function refuseHeld(sql: SQL, tables: string[], options: CopyOptions): Promise<boolean> {
  for (const table of tables) {
    const [row] = await sql`SELECT EXISTS (SELECT 1 FROM ${sql(table)}) AS held`;
    if (!row.held) continue;
    if (options.replace) return true;
    throw new ConfigError(`${options.where} already holds renderd data (rows in ${table}): point DATABASE_URL at an empty database, or add --force to replace its rows with DATA_DIR's.`);
  }
  return false;
}

/** databaseAddress answers DATABASE_URL without its user or password: what a message may say about it. */
export function databaseAddress(url: string): string {
  const { protocol, host, pathname } = new URL(url);
  return `${protocol}//${host}${pathname}`;
}
