/** store/migrate: applies pending migrations in order, each in its own transaction, before serve listens. */
import type { Clock } from "../lib/clock";
import { MIGRATIONS } from "./migrations";
import type { SqliteStore } from "./sqlite-store";

/** migrate applies every migration newer than the store's and answers the names it applied. */
export async function migrate(store: SqliteStore, clock: Clock): Promise<string[]> {
  store.db.run(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  const row = await store.get<{ v: number | null }>("SELECT MAX(version) AS v FROM schema_migrations");
  const current = row?.v ?? 0;
  const newest = MIGRATIONS.at(-1)?.version ?? 0;
  if (current > newest) throw new Error(`the store is at migration ${current}, newer than this binary knows (${newest}): upgrade renderd`);
  const applied: string[] = [];
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    await store.tx(async (tx) => {
      store.db.run(m.sql);
      await tx.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($v, $n, $t)", {
        v: m.version,
        n: m.name,
        t: clock.now().toISOString(),
      });
    });
    applied.push(m.name);
  }
  return applied;
}
