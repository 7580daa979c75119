/**
 * schema: a store's schema read back from SQLite's pragmas or PostgreSQL's catalogue into one shape, so that a test can
 * say the two engines hold the same tables, columns, keys, checks and indexes.
 */
import type { Database } from "bun:sqlite";
import type { SQL } from "bun";

/** Table is one table: columns in order, keys, and checks normalised to compare across engines. */
export interface Table {
  columns: string[];
  primaryKey: string[];
  unique: string[];
  foreignKeys: string[];
  checks: string[];
}

/** Schema is every table and every index made by CREATE INDEX (those behind keys are the tables' keys). */
export interface Schema {
  tables: Record<string, Table>;
  indexes: Record<string, string>;
}

// The type mapping of store/postgres-dialect.ts: an unmapped SQLite type shows as itself and fails the comparison.
const SQLITE_TYPES: Record<string, string> = { INTEGER: "bigint", TEXT: "text", BLOB: "bytea" };

// `x IN ('a', 'b')` and `x = ANY (ARRAY['a'::text, 'b'::text])` both become `x in [a,b]`; other checks lose their
// parentheses, casts and spaces (`size>0ANDsize<=50000000`).
function check(expression: string): string {
  const inList = /^\(*(\w+)\s+IN\s+\((.*)\)\)*$/i.exec(expression) ?? /^\(*(\w+) = ANY \(ARRAY\[(.*)\]\)\)*$/.exec(expression);
  if (inList) {
    const values = inList[2]!.split(",").map((v) => v.trim().replace(/::\w+$/, "").replace(/^\((.*)\)$/, "$1").replace(/^'(.*)'$/, "$1"));
    return `${inList[1]} in [${values.sort().join(",")}]`;
  }
  return expression.replace(/::\w+/g, "").replace(/[()\s]/g, "");
}

function sortTables(tables: Record<string, Table>): Record<string, Table> {
  for (const t of Object.values(tables)) for (const list of [t.unique, t.foreignKeys, t.checks]) list.sort();
  return tables;
}

/** sqliteSchema reads `db`'s schema (sqlite_master, table_info, index_list, index_xinfo, foreign_key_list). */
export function sqliteSchema(db: Database): Schema {
  const tables: Record<string, Table> = {};
  const indexes: Record<string, string> = {};
  const names = db.query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
  for (const { name, sql } of names) {
    const columns = db.query<{ name: string; type: string; notnull: number; pk: number }, []>(`PRAGMA table_info(${name})`).all();
    const primaryKey = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
    const unique: string[] = [];
    for (const ix of db.query<{ name: string; unique: number; origin: string; partial: number }, []>(`PRAGMA index_list(${name})`).all()) {
      const keys = db.query<{ name: string; desc: number; key: number }, []>(`PRAGMA index_xinfo(${ix.name})`).all().filter((k) => k.key === 1);
      const cols = keys.map((k) => k.name + (k.desc ? " DESC" : "")).join(", ");
      if (ix.origin === "u") unique.push(cols);
      if (ix.origin === "c") indexes[ix.name] = `${ix.unique ? "unique " : ""}${name} (${cols})${ix.partial ? " partial" : ""}`;
    }
    const foreignKeys = db
      .query<{ table: string; from: string; to: string; on_delete: string }, []>(`PRAGMA foreign_key_list(${name})`)
      .all()
      .map((f) => `${f.from} -> ${f.table}(${f.to})${f.on_delete === "NO ACTION" ? "" : ` ON DELETE ${f.on_delete}`}`);
    const checks = [...sql.matchAll(/CHECK \(((?:[^()]|\([^()]*\))*)\)/g)].map((m) => check(m[1]!));
    tables[name] = {
      // SQLite lets a non-INTEGER primary key hold NULL (a legacy quirk); PostgreSQL does not, and renderd never writes one.
      columns: columns.map((c) => `${c.name} ${SQLITE_TYPES[c.type] ?? c.type}${c.notnull || c.pk ? " not null" : ""}`),
      primaryKey,
      unique,
      foreignKeys,
      checks,
    };
  }
  return { tables: sortTables(tables), indexes };
}

/** postgresSchema reads the public schema of `sql`'s database (information_schema.columns, pg_constraint, pg_indexes). */
export async function postgresSchema(sql: SQL): Promise<Schema> {
  const tables: Record<string, Table> = {};
  const indexes: Record<string, string> = {};
  const columns: Array<{ table_name: string; column_name: string; data_type: string; is_nullable: string }> = await sql`
    SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
    WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`;
  for (const c of columns) {
    tables[c.table_name] ??= { columns: [], primaryKey: [], unique: [], foreignKeys: [], checks: [] };
    tables[c.table_name]!.columns.push(`${c.column_name} ${c.data_type}${c.is_nullable === "NO" ? " not null" : ""}`);
  }
  const constraints: Array<{ t: string; contype: string; def: string }> = await sql`
    SELECT c.conrelid::regclass::text AS t, c.contype, pg_get_constraintdef(c.oid) AS def
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'`;
  for (const { t, contype, def } of constraints) {
    const table = tables[t]!;
    const cols = /\(([^)]*)\)/.exec(def)?.[1] ?? "";
    if (contype === "p") table.primaryKey = cols.split(", ");
    else if (contype === "u") table.unique.push(cols);
    else if (contype === "f") {
      const [, from, to, onDelete] = /^FOREIGN KEY \((\w+)\) REFERENCES (\w+\(\w+\))(?: ON DELETE (.+))?$/.exec(def)!;
      table.foreignKeys.push(`${from} -> ${to}${onDelete ? ` ON DELETE ${onDelete}` : ""}`);
    } else if (contype === "c") table.checks.push(check(/^CHECK \((.*)\)$/.exec(def)![1]!));
  }
  const rows: Array<{ indexname: string; indexdef: string }> = await sql`
    SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'
    AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE contype IN ('p', 'u'))`;
  for (const { indexname, indexdef } of rows) {
    const [, unique, table, cols, where] = /^CREATE (UNIQUE )?INDEX \w+ ON public\.(\w+) USING btree \((.*?)\)( WHERE .*)?$/.exec(indexdef)!;
    // pg_get_indexdef quotes a column named after a keyword (`"position"`); SQLite answers the bare name.
    indexes[indexname] = `${unique ? "unique " : ""}${table} (${cols!.replaceAll('"', "")})${where ? " partial" : ""}`;
  }
  return { tables: sortTables(tables), indexes };
}
