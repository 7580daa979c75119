/** store/migrate-postgres: applies pending migrations to PostgreSQL, each in its own transaction, once however many processes start together. */
import type { SQL } from "bun";
import type { Clock } from "../lib/clock";
import { MIGRATIONS } from "./migrations";
import { toPostgres } from "./postgres-dialect";

// One key for every renderd on the database: the transaction that holds it is the only one migrating.
const MIGRATION_LOCK = 7_265_746_780;

/** migratePostgres applies every migration newer than the database's and answers the names this call applied. */
export async function migratePostgres(sql: SQL, clock: Clock): Promise<string[]> {
  const newest = MIGRATIONS.at(-1)?.version ?? 0;
  const applied: string[] = [];
  for (;;) {
    // Each transaction takes the lock, then reads the version: a process that waited sees what the other one applied.
    const name = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      await tx`CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`;
      const [row] = await tx`SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations`;
      const current = Number(row.v);
      if (current > newest) throw new Error(`the store is at migration ${current}, newer than this binary knows (${newest}): upgrade renderd`);
      const next = MIGRATIONS.find((m) => m.version > current);
      if (!next) return null;
      await tx.unsafe(toPostgres(next.version, next.sql)).simple();
      await tx`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${next.version}, ${next.name}, ${clock.now().toISOString()})`;
      return next.name;
    });
    if (name === null) return applied;
    applied.push(name);
  }
}
