/** The Store contract (src/store/store.ts), run against both engines: SQLite under a temporary DATA_DIR and PostgreSQL
 * in the run's throw-away cluster (test/store/engines.ts). The schema is renderd's own, migrated by openMigratedStore. */
import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../../src/lib/clock";
import { StoreError } from "../../src/store/postgres-store";
import type { SqliteStore } from "../../src/store/sqlite-store";
import type { Store } from "../../src/store/store";
import { ENGINES, testStores, type Engine } from "./engines";

const clock = new ManualClock("2026-03-10T10:00:00.000Z");
const stores = testStores("contract");

async function open(engine: Engine): Promise<Store> {
  // A database whose own collation is not byte order (ICU, English): the store's text columns must not follow it.
  const where = await stores.place(engine, "TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'");
  // The throw-away cluster commits without waiting for the disk (fsync off); its stores' databases wait, as production's.
  if (where.databaseUrl) {
    const admin = new SQL(where.databaseUrl);
    await admin.unsafe(`ALTER DATABASE ${where.name} SET synchronous_commit = on`);
    await admin.close();
  }
  const store = await stores.open(where, clock);
  expect(store.engine).toBe(engine);
  return store;
}

function addWorkspace(store: Store, id: string, maxStorage = 1000): void {
  store.run(
    `INSERT INTO workspaces (id, name, slug, suspended, max_storage_bytes, created_at)
     VALUES ($id, $id, $id, $suspended, $max, $now)`,
    { id, suspended: false, max: maxStorage, now: clock.now().toISOString() },
  );
}

for (const engine of ENGINES) {
  describe(`Store on ${engine}`, () => {
    test("named parameters, used twice or inside quotes; 64-bit and summed integers and flags as numbers", async () => {
      const store = await open(engine);
      expect(store.engine).toBe(engine);
      store.tx(() => {
        addWorkspace(store, "ws_a", 2 ** 40);
        addWorkspace(store, "ws_b", 5);
      });
      expect(store.get("SELECT id, suspended, max_storage_bytes FROM workspaces WHERE id = $id OR slug = $id", { id: "ws_a" })).toEqual({
        id: "ws_a",
        suspended: 0,
        max_storage_bytes: 2 ** 40,
      });
      expect(store.get("SELECT COUNT(*) AS n, SUM(max_storage_bytes) AS total FROM workspaces")).toEqual({ n: 2, total: 2 ** 40 + 5 });
      expect(store.get("SELECT '$id' AS literal, EXISTS (SELECT 1 FROM workspaces WHERE id = $id) AS found", { id: "ws_b" })).toEqual({ literal: "$id", found: 1 });
      expect(store.all<{ id: string }>("SELECT id FROM workspaces ORDER BY id").map((r) => r.id)).toEqual(["ws_a", "ws_b"]);
      // Text compares by its bytes on both engines, whatever the database's collation: keyset paging relies on it.
      addWorkspace(store, "ws_B");
      expect(store.all<{ id: string }>("SELECT id FROM workspaces WHERE id > $after ORDER BY id", { after: "ws_A" }).map((r) => r.id)).toEqual(["ws_B", "ws_a", "ws_b"]);
      expect(store.get("SELECT id FROM workspaces WHERE id = $id", { id: "none" })).toBeNull();
      expect(store.run("UPDATE workspaces SET suspended = $s WHERE max_storage_bytes < $m", { s: true, m: 100 })).toBe(1);
    });

    test("a transaction commits whole or not at all, and a nested one rolls back alone", async () => {
      const store = await open(engine);
      expect(store.inTransaction).toBe(false);
      expect(() =>
        store.tx(() => {
          expect(store.inTransaction).toBe(true);
          addWorkspace(store, "ws_lost");
          throw new Error("boom");
        }),
      ).toThrow("boom");
      expect(store.inTransaction).toBe(false);
      expect(store.get("SELECT id FROM workspaces WHERE id = 'ws_lost'")).toBeNull();
      store.tx(() => {
        addWorkspace(store, "ws_kept");
        expect(() =>
          store.tx(() => {
            addWorkspace(store, "ws_inner");
            throw new Error("inner");
          }),
        ).toThrow("inner");
        expect(store.inTransaction).toBe(true);
        store.tx(() => addWorkspace(store, "ws_inner_kept"));
      });
      expect(store.all<{ id: string }>("SELECT id FROM workspaces ORDER BY id").map((r) => r.id)).toEqual(["ws_inner_kept", "ws_kept"]);
    });

    test("a transaction that need not wait for the disk commits and is seen like any other; the next one waits again", async () => {
      const store = await open(engine);
      const setting = () => store.get(engine === "sqlite" ? "PRAGMA synchronous" : "SELECT current_setting('synchronous_commit') AS synchronous");
      const lazy = engine === "sqlite" ? { synchronous: 1 } : { synchronous: "off" };
      const durable = engine === "sqlite" ? { synchronous: 2 } : { synchronous: "on" };
      expect(store.tx(setting, { durable: false })).toEqual(lazy);
      store.tx(() => addWorkspace(store, "ws_lazy"), { durable: false });
      expect(store.get("SELECT id FROM workspaces WHERE id = 'ws_lazy'")).toEqual({ id: "ws_lazy" });
      expect(() => store.tx(() => addWorkspace(store, "ws_lazy"), { durable: false })).toThrow();
      expect(store.tx(setting)).toEqual(durable);
    });

    test("sync waits until a commit that did not wait for the disk is flushed", async () => {
      const store = await open(engine);
      store.tx(() => addWorkspace(store, "ws_synced"), { durable: false });
      if (engine === "sqlite") {
        // The commit is in the write-ahead log, which sync flushes.
        expect(existsSync(`${(store as SqliteStore).path}-wal`)).toBe(true);
        await store.sync();
        return;
      }
      // Everything inserted into the server's log so far, the commit's record included, is flushed once sync resolves.
      const lsn = store.get<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn")!.lsn;
      await store.sync();
      expect(store.get<{ flushed: number }>("SELECT pg_current_wal_flush_lsn() >= $lsn::pg_lsn AS flushed", { lsn })).toEqual({ flushed: 1 });
    });

    test("a refused statement throws and leaves the store usable; ping answers", async () => {
      const store = await open(engine);
      addWorkspace(store, "ws_dup");
      expect(() => addWorkspace(store, "ws_dup")).toThrow();
      expect(() => store.get("SELECT nope FROM workspaces")).toThrow();
      expect(() => store.tx(() => addWorkspace(store, "ws_dup"))).toThrow();
      expect(store.ping()).toBe(true);
      expect(store.get<{ n: number }>("SELECT COUNT(*) AS n FROM workspaces")!.n).toBe(1);
    });
  });
}

describe("PostgresStore", () => {
  test("names a missing parameter and gives PostgreSQL's SQLSTATE", async () => {
    const store = await open("postgres");
    expect(() => store.get("SELECT id FROM workspaces WHERE id = $id")).toThrow("statement parameter $id has no value");
    let error: unknown;
    try {
      store.get("SELECT nope FROM workspaces");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe("42703");
  });

  test("write transactions of two processes take turns (one writer at a time, as on SQLite)", async () => {
    const where = await stores.place("postgres");
    const url = where.databaseUrl!;
    const store = await stores.open(where, clock);
    // The other process holds a write transaction for 600 ms, then writes its mark and commits.
    const child = Bun.spawn(
      [
        process.execPath,
        "-e",
        `import { PostgresStore } from ${JSON.stringify(join(import.meta.dir, "../../src/store/postgres-store.ts"))};
         const s = new PostgresStore(${JSON.stringify(url)});
         s.tx(() => { console.log("holding"); Bun.sleepSync(600); s.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (900, 'child', 'x')"); });
         s.close();`,
      ],
      { stdout: "pipe", stderr: "inherit" },
    );
    const reader = child.stdout.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("holding");
    const started = performance.now();
    // Inside this process's own write transaction the other's mark is already there: the lock waited for its commit.
    const seen = store.tx(() => store.get("SELECT name FROM schema_migrations WHERE version = 900"));
    expect(performance.now() - started).toBeGreaterThan(300);
    expect(seen).toEqual({ name: "child" });
    expect(await child.exited).toBe(0);
  });
});
