import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { ManualClock } from "../../src/lib/clock";
import { migrate } from "../../src/store/migrate";
import { migratePostgres } from "../../src/store/migrate-postgres";
import { MIGRATIONS } from "../../src/store/migrations";
import { openStore } from "../../src/store/open";
import type { SqliteStore } from "../../src/store/sqlite-store";
import { toPostgres } from "../../src/store/postgres-dialect";
import { postgresBinDir, startPostgres, type TestPostgres } from "./postgres-server";
import { postgresSchema, sqliteSchema } from "./schema";

let pg: TestPostgres;
let sql: SQL;
let sqliteDir: string;
let sqlite: SqliteStore;
let firstRun: string[];
const clock = new ManualClock();

beforeAll(async () => {
  // No PostgreSQL is a failure with the reason (startPostgres says to run ./install.sh), never a skip.
  pg = await startPostgres();
  sql = new SQL(pg.url);
  firstRun = await migratePostgres(sql, clock);
  sqliteDir = mkdtempSync(join(tmpdir(), "renderd-store-"));
  sqlite = openStore(sqliteDir);
  await migrate(sqlite, new ManualClock());
});

afterAll(async () => {
  await sql?.close();
  await pg?.stop();
  await sqlite?.close();
  if (sqliteDir) rmSync(sqliteDir, { recursive: true, force: true });
});

describe("migratePostgres", () => {
  test("applies every migration once, in order, and records it; a second run applies nothing", async () => {
    expect(firstRun).toEqual(MIGRATIONS.map((m) => m.name));
    expect(await migratePostgres(sql, clock)).toEqual([]);
    const rows = await sql`SELECT version, name, applied_at FROM schema_migrations ORDER BY version`;
    expect(rows.map((r: { version: string }) => Number(r.version))).toEqual(MIGRATIONS.map((m) => m.version));
    expect(rows[0].applied_at).toBe(clock.now().toISOString());
  });

  test("leaves the same tables, columns, keys, checks and indexes as SQLite", async () => {
    const onSqlite = sqliteSchema(sqlite.db);
    const onPostgres = await postgresSchema(sql);
    expect(Object.keys(onSqlite.tables).length).toBeGreaterThanOrEqual(20);
    const created = MIGRATIONS.flatMap((m) => m.sql.match(/^CREATE INDEX/gm) ?? []).length;
    expect(Object.keys(onSqlite.indexes).length).toBe(created);
    expect(onPostgres).toEqual(onSqlite);
    // The values the app relies on, spelled out: 0010 widened this list with a table rebuild on SQLite.
    expect(onPostgres.tables.allowance_counters!.checks).toEqual(["counter in [documents,template_conversions,test_renders]"]);
    expect(onPostgres.tables.allowance_counters!.primaryKey).toEqual(["workspace_id", "counter", "period"]);
    expect(onPostgres.indexes.renders_leases).toBe("renders (lease_expires_at) partial");
  });

  test("users.email is unique and found whatever its case, as with SQLite's NOCASE", async () => {
    await sql`INSERT INTO users (id, email, password_hash, created_at) VALUES ('usr_a', 'Ada@Example.org', 'h', 't')`;
    expect(await sql`SELECT id FROM users WHERE email = ${"ada@example.ORG"}`).toEqual([{ id: "usr_a" }]);
    await expect(sql`INSERT INTO users (id, email, password_hash, created_at) VALUES ('usr_b', 'ADA@example.org', 'h', 't')`).rejects.toThrow(
      /users_email_key/,
    );
    sqlite.db.run("INSERT INTO users (id, email, password_hash, created_at) VALUES ('usr_a', 'Ada@Example.org', 'h', 't')");
    expect(await sqlite.get("SELECT id FROM users WHERE email = $e", { e: "ada@example.ORG" })).toEqual({ id: "usr_a" });
    expect(() => sqlite.db.run("INSERT INTO users (id, email, password_hash, created_at) VALUES ('usr_b', 'ADA@example.org', 'h', 't')")).toThrow(
      /UNIQUE/,
    );
  });

  test("two runners starting together apply each migration once", async () => {
    const url = await pg.database("together");
    const [a, b] = [new SQL(url), new SQL(url)];
    try {
      const [byA, byB] = await Promise.all([migratePostgres(a, new ManualClock()), migratePostgres(b, new ManualClock())]);
      expect([...byA, ...byB].sort()).toEqual(MIGRATIONS.map((m) => m.name));
      const [{ n }] = await a`SELECT COUNT(*)::int AS n FROM schema_migrations`;
      expect(n).toBe(MIGRATIONS.length);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test("a database newer than the binary is refused, and a failed migration leaves nothing behind", async () => {
    const url = await pg.database("newer");
    const db = new SQL(url);
    try {
      await migratePostgres(db, new ManualClock());
      await db`INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 'x')`;
      await expect(migratePostgres(db, new ManualClock())).rejects.toThrow("newer than this binary");
      await db`DELETE FROM schema_migrations WHERE version = 9999`;
      // Migration 11 half there: its first statement succeeds, its second fails, and the first is rolled back with it.
      // Those after it are forgotten too, so that 11 is pending again whatever the newest migration is.
      await db`DELETE FROM schema_migrations WHERE version >= 11`;
      await db`ALTER TABLE renders DROP COLUMN lease_owner`;
      await expect(migratePostgres(db, new ManualClock())).rejects.toThrow(/lease_expires_at/);
      const [{ v }] = await db`SELECT MAX(version)::int AS v FROM schema_migrations`;
      expect(v).toBe(10);
      const cols = await db`SELECT column_name FROM information_schema.columns WHERE table_name = 'renders' AND column_name = 'lease_owner'`;
      expect(cols).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

describe("toPostgres", () => {
  test("leaves the SQLite migrations as the files say, byte for byte", () => {
    for (const m of MIGRATIONS) expect(m.sql).toBe(readFileSync(join(import.meta.dir, "../../migrations", `${m.name}.sql`), "utf8"));
  });

  test("maps INTEGER to BIGINT, BLOB to BYTEA, NOCASE to an ICU collation, and drops comments", () => {
    const out = toPostgres(99, "-- a note on INTEGER\nCREATE TABLE t (\n  n INTEGER NOT NULL, -- count\n  b BLOB,\n  e TEXT COLLATE NOCASE\n);");
    expect(out).toBe(
      "CREATE COLLATION IF NOT EXISTS renderd_nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);\n" +
        "CREATE TABLE t (\n  n BIGINT NOT NULL, \n  b BYTEA,\n  e TEXT COLLATE renderd_nocase\n);",
    );
  });

  test("rewrites 0010's table rebuild as a change of the CHECK in place", () => {
    const out = toPostgres(10, MIGRATIONS[9]!.sql);
    expect(out).not.toContain("allowance_counters_new");
    expect(out).toContain("ADD CONSTRAINT allowance_counters_counter_check CHECK (counter IN ('documents', 'test_renders', 'template_conversions'))");
    expect(() => toPostgres(10, "CREATE TABLE x (id TEXT);")).toThrow("the statement its PostgreSQL rewrite replaces is not there");
  });

  test("refuses what it does not translate, naming it", () => {
    const cases: Array<[string, string]> = [
      ["CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT);", "AUTOINCREMENT"],
      ["INSERT OR IGNORE INTO t VALUES (1);", "INSERT OR"],
      ["CREATE TABLE t (at TEXT DEFAULT (datetime('now')));", "SQLite date functions"],
      ["CREATE TABLE t (x REAL);", "a column type other than TEXT, INTEGER or BLOB"],
      ["CREATE TABLE t (x TEXT COLLATE RTRIM);", "a collation other than NOCASE"],
    ];
    for (const [text, what] of cases) expect(() => toPostgres(12, text)).toThrow(`migration 12 uses ${what}`);
  });
});

describe("postgresBinDir", () => {
  test("picks the newest Debian major, and without one fails saying to run install.sh", () => {
    const root = mkdtempSync(join(tmpdir(), "renderd-pgbin-"));
    try {
      expect(() => postgresBinDir(root, "")).toThrow("PostgreSQL is not installed");
      expect(() => postgresBinDir(root, "")).toThrow("Run ./install.sh");
      for (const major of ["9", "15", "13"]) {
        mkdirSync(join(root, major, "bin"), { recursive: true });
        for (const tool of ["initdb", "pg_ctl"]) {
          writeFileSync(join(root, major, "bin", tool), "");
          chmodSync(join(root, major, "bin", tool), 0o755);
        }
      }
      expect(postgresBinDir(root, "")).toBe(join(root, "15", "bin"));
      expect(postgresBinDir(join(root, "absent"), join(root, "13", "bin"))).toBe(join(root, "13", "bin"));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
