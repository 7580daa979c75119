/** store/open: opens the store the configuration names — PostgreSQL at DATABASE_URL, else DATA_DIR's SQLite file. */
import { SQL } from "bun";
import { join } from "node:path";
import type { Clock } from "../lib/clock";
import { migrate } from "./migrate";
import { migratePostgres } from "./migrate-postgres";
import { PostgresStore } from "./postgres-store";
import { SqliteStore } from "./sqlite-store";
import type { Store } from "./store";

/** storePath answers where DATA_DIR's SQLite file is. */
export function storePath(dataDir: string): string {
  return join(dataDir, "renderd.db");
}

/** openStore opens or creates DATA_DIR/renderd.db. */
export function openStore(dataDir: string): SqliteStore {
  return new SqliteStore(storePath(dataDir));
}

/** StoreLocation is where the store is: `databaseUrl` when set, else `dataDir`. */
export interface StoreLocation {
  dataDir: string;
  databaseUrl?: string;
}

/** openMigratedStore opens the store at `where` and applies its pending migrations (on PostgreSQL under an advisory lock,
 * so processes starting together take turns); answers the store and the names of the migrations applied. */
export async function openMigratedStore(where: StoreLocation, clock: Clock): Promise<{ store: Store; applied: string[] }> {
  if (where.databaseUrl === undefined) {
    const store = openStore(where.dataDir);
    try {
      return { store, applied: await migrate(store, clock) };
    } catch (e) {
      await store.close();
      throw e;
    }
  }
  const sql = new SQL(where.databaseUrl, { max: 1 });
  let applied: string[];
  try {
    applied = await migratePostgres(sql, clock);
  } finally {
    await sql.close();
  }
  return { store: await PostgresStore.open(where.databaseUrl), applied };
}
