/** engines: stores on both engines for the store's own tests — SQLite under a temporary DATA_DIR, PostgreSQL in a new
 * database of the run's cluster (test/backends.ts) — closed and removed after the test file that made them. */
import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../../src/lib/clock";
import { openMigratedStore, type StoreLocation } from "../../src/store/open";
import type { Store } from "../../src/store/store";
import { sharedPostgres } from "../backends";

export const ENGINES = ["sqlite", "postgres"] as const;
export type Engine = (typeof ENGINES)[number];

// Databases of every file of the run live in one cluster: their names count across files.
let databases = 0;

/** testStores registers the clean-up of the calling file's stores and answers `place`, a new place for a store (a
 * DATA_DIR, and on PostgreSQL a new database made with `createOptions` after CREATE DATABASE's name), and `open`, a
 * migrated store there — opened as often as asked, as several processes open one store. */
export function testStores(prefix: string): {
  place(engine: Engine, createOptions?: string): Promise<StoreLocation & { name?: string }>;
  open(where: StoreLocation, clock: Clock): Promise<Store>;
} {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return {
    async place(engine, createOptions = "") {
      const dataDir = mkdtempSync(join(tmpdir(), `renderd-${prefix}-`));
      dirs.push(dataDir);
      if (engine === "sqlite") return { dataDir };
      const name = `${prefix}_${++databases}`;
      return { dataDir, name, databaseUrl: await (await sharedPostgres()).database(name, createOptions) };
    },
    async open(where, clock) {
      const { store } = await openMigratedStore(where, clock);
      stores.push(store);
      return store;
    },
  };
}

/** holdRows runs `statement` in a transaction of `store` — another process locking rows — and keeps the transaction, and
 * its locks, open until `release` is called; `release` answers once it has committed. */
export async function holdRows(store: Store, statement: string): Promise<{ release: () => Promise<void> }> {
  const released = Promise.withResolvers<void>();
  const locked = Promise.withResolvers<void>();
  const holder = store.tx(async (tx) => {
    await tx.run(statement);
    locked.resolve();
    await released.promise;
  });
  await Promise.race([locked.promise, holder]);
  return {
    release: async () => {
      released.resolve();
      await holder;
    },
  };
}
