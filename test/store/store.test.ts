/** The Store contract (src/store/store.ts), run against both engines: SQLite under a temporary DATA_DIR and PostgreSQL
 * in the run's throw-away cluster (test/store/engines.ts). The schema is renderd's own, migrated by openMigratedStore. */
import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../../src/lib/clock";
import { StoreError } from "../../src/store/postgres-store";
import type { SqliteStore } from "../../src/store/sqlite-store";
import type { Store, Tx } from "../../src/store/store";
import { rejection, until } from "../wait";
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

async function addWorkspace(tx: Tx, id: string, maxStorage = 1000): Promise<void> {
  await tx.run(
    `INSERT INTO workspaces (id, name, slug, suspended, max_storage_bytes, created_at)
     VALUES ($id, $id, $id, $suspended, $max, $now)`,
    { id, suspended: false, max: maxStorage, now: clock.now().toISOString() },
  );
}

const ids = async (store: Store, sql = "SELECT id FROM workspaces ORDER BY id", params = {}) => (await store.all<{ id: string }>(sql, params)).map((r) => r.id);

for (const engine of ENGINES) {
  describe(`Store on ${engine}`, () => {
    test("named parameters, used twice or inside quotes; 64-bit and summed integers and flags as numbers", async () => {
      const store = await open(engine);
      expect(store.engine).toBe(engine);
      await store.tx(async (tx) => {
        await addWorkspace(tx, "ws_a", 2 ** 40);
        await addWorkspace(tx, "ws_b", 5);
      });
      expect(await store.get("SELECT id, suspended, max_storage_bytes FROM workspaces WHERE id = $id OR slug = $id", { id: "ws_a" })).toEqual({
        id: "ws_a",
        suspended: 0,
        max_storage_bytes: 2 ** 40,
      });
      expect(await store.get("SELECT COUNT(*) AS n, SUM(max_storage_bytes) AS total FROM workspaces")).toEqual({ n: 2, total: 2 ** 40 + 5 });
      expect(await store.get("SELECT '$id' AS literal, EXISTS (SELECT 1 FROM workspaces WHERE id = $id) AS found", { id: "ws_b" })).toEqual({ literal: "$id", found: 1 });
      expect(await ids(store)).toEqual(["ws_a", "ws_b"]);
      // Text compares by its bytes on both engines, whatever the database's collation: keyset paging relies on it.
      await store.tx((tx) => addWorkspace(tx, "ws_B"));
      expect(await ids(store, "SELECT id FROM workspaces WHERE id > $after ORDER BY id", { after: "ws_A" })).toEqual(["ws_B", "ws_a", "ws_b"]);
      expect(await store.get("SELECT id FROM workspaces WHERE id = $id", { id: "none" })).toBeNull();
      expect(await store.tx((tx) => tx.run("UPDATE workspaces SET suspended = $s WHERE max_storage_bytes < $m", { s: true, m: 100 }))).toBe(1);
      // A row lock is PostgreSQL's; SQLite, whose writers take turns, reads the same text without it.
      expect(await store.tx((tx) => tx.get("SELECT id FROM workspaces WHERE id = $id FOR UPDATE", { id: "ws_a" }))).toEqual({ id: "ws_a" });
    });

    test("a transaction commits whole or not at all, and a savepoint rolls back alone", async () => {
      const store = await open(engine);
      expect(
        await rejection(
          store.tx(async (tx) => {
            await addWorkspace(tx, "ws_lost");
            throw new Error("boom");
          }),
        ),
      ).toHaveProperty("message", "boom");
      expect(await store.get("SELECT id FROM workspaces WHERE id = 'ws_lost'")).toBeNull();
      await store.tx(async (tx) => {
        await addWorkspace(tx, "ws_kept");
        const inner = tx.savepoint(async (sp) => {
          await addWorkspace(sp, "ws_inner");
          throw new Error("inner");
        });
        expect(await rejection(inner)).toHaveProperty("message", "inner");
        await tx.savepoint((sp) => addWorkspace(sp, "ws_inner_kept"));
      });
      expect(await ids(store)).toEqual(["ws_inner_kept", "ws_kept"]);
    });

    test("a write the body does not wait for is read by the statements after it, and its failure fails the transaction with its own error", async () => {
      const store = await open(engine);
      await store.tx(async (tx) => {
        tx.write("INSERT INTO workspaces (id, name, slug, suspended, max_storage_bytes, created_at) VALUES ($id, $id, $id, 0, 1, $now)", { id: "ws_written", now: clock.now().toISOString() });
        tx.write("UPDATE workspaces SET name = $name WHERE id = $id", { id: "ws_written", name: "renamed" });
        expect(await tx.get("SELECT name FROM workspaces WHERE id = 'ws_written'")).toEqual({ name: "renamed" });
        tx.write("UPDATE workspaces SET max_storage_bytes = 7 WHERE id = 'ws_written'");
      });
      expect(await store.get("SELECT name, max_storage_bytes FROM workspaces WHERE id = 'ws_written'")).toEqual({ name: "renamed", max_storage_bytes: 7 });
      // A duplicate key: the statements awaited after it (refused on PostgreSQL once the transaction failed) do not hide it.
      const failed = store.tx(async (tx) => {
        await addWorkspace(tx, "ws_lost");
        tx.write("INSERT INTO workspaces (id, name, slug, suspended, max_storage_bytes, created_at) VALUES ('ws_written', 'x', 'x', 0, 1, 'now')");
        await tx.get("SELECT id FROM workspaces WHERE id = 'ws_lost'");
      });
      expect((await rejection(failed)).message).toMatch(/unique|duplicate/i);
      expect(await ids(store)).toEqual(["ws_written"]);
      // Inside a savepoint it fails the savepoint alone, with its own error, and the transaction goes on.
      await store.tx(async (tx) => {
        await addWorkspace(tx, "ws_after");
        const inner = tx.savepoint(async (sp) => {
          sp.write("INSERT INTO workspaces (id, name, slug, suspended, max_storage_bytes, created_at) VALUES ('ws_written', 'x', 'x', 0, 1, 'now')");
        });
        expect((await rejection(inner)).message).toMatch(/unique|duplicate/i);
      });
      expect(await ids(store)).toEqual(["ws_after", "ws_written"]);
    });

    test("a read outside a transaction never sees another's open transaction; a handle refuses use once its transaction ended", async () => {
      const store = await open(engine);
      let leaked: Tx | undefined;
      let seenOutside: unknown = "unread";
      await store.tx(async (tx) => {
        leaked = tx;
        await addWorkspace(tx, "ws_open");
        // Another request reads meanwhile: it sees what is committed, not this transaction's row.
        seenOutside = await store.get("SELECT id FROM workspaces WHERE id = 'ws_open'");
      });
      expect(seenOutside).toBeNull();
      expect(await store.get("SELECT id FROM workspaces WHERE id = 'ws_open'")).toEqual({ id: "ws_open" });
      expect(await rejection(Promise.resolve().then(() => leaked!.get("SELECT 1 AS one")))).toBeInstanceOf(Error);
    });

    test("transactions of one process take turns or overlap without losing a write; statements sent together keep their order", async () => {
      const store = await open(engine);
      await store.tx((tx) => addWorkspace(tx, "ws_count", 0));
      // Forty read-modify-write transactions at once, each locking the row it changes: none is lost.
      await Promise.all(
        Array.from({ length: 40 }, () =>
          store.tx(async (tx) => {
            const row = (await tx.get<{ n: number }>("SELECT max_storage_bytes AS n FROM workspaces WHERE id = 'ws_count' FOR UPDATE"))!;
            await tx.run("UPDATE workspaces SET max_storage_bytes = $n WHERE id = 'ws_count'", { n: row.n + 1 });
          }),
        ),
      );
      expect(await store.get("SELECT max_storage_bytes AS n FROM workspaces WHERE id = 'ws_count'")).toEqual({ n: 40 });
      const [, , after] = await store.tx((tx) =>
        Promise.all([addWorkspace(tx, "ws_p1"), addWorkspace(tx, "ws_p2"), tx.all<{ id: string }>("SELECT id FROM workspaces WHERE id LIKE 'ws_p%' ORDER BY id")]),
      );
      expect(after.map((r) => r.id)).toEqual(["ws_p1", "ws_p2"]);
    });

    test("once tx() resolves, a read outside any transaction sees its write, with other transactions and reads under way", async () => {
      const store = await open(engine);
      await store.tx((tx) => addWorkspace(tx, "ws_ryw", 0));
      // Each writer reads its own write back on the read connection (SQLite) or the pool (PostgreSQL) the moment its
      // tx() resolves, durable or not, while the other writers' transactions and reads are in flight.
      const seen = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (async () => {
            await store.tx((tx) => tx.run("UPDATE workspaces SET max_storage_bytes = max_storage_bytes + 1 WHERE id = 'ws_ryw'"), { durable: i % 2 === 0 });
            await store.tx((tx) => addWorkspace(tx, `ws_ryw${i}`), { durable: i % 2 === 0 });
            return (await store.get<{ id: string }>("SELECT id FROM workspaces WHERE id = $id", { id: `ws_ryw${i}` }))?.id;
          })(),
        ),
      );
      expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => `ws_ryw${i}`));
      expect(await store.get("SELECT max_storage_bytes AS n FROM workspaces WHERE id = 'ws_ryw'")).toEqual({ n: 40 });
    });

    test("a transaction that need not wait for the disk commits and is seen like any other; the next one waits again", async () => {
      const store = await open(engine);
      const setting = (tx: Tx) => tx.get(engine === "sqlite" ? "PRAGMA synchronous" : "SELECT current_setting('synchronous_commit') AS synchronous");
      const lazy = engine === "sqlite" ? { synchronous: 1 } : { synchronous: "off" };
      const durable = engine === "sqlite" ? { synchronous: 2 } : { synchronous: "on" };
      expect(await store.tx(setting, { durable: false })).toEqual(lazy);
      await store.tx((tx) => addWorkspace(tx, "ws_lazy"), { durable: false });
      expect(await store.get("SELECT id FROM workspaces WHERE id = 'ws_lazy'")).toEqual({ id: "ws_lazy" });
      expect(await rejection(store.tx((tx) => addWorkspace(tx, "ws_lazy"), { durable: false }))).toBeInstanceOf(Error);
      expect(await store.tx(setting)).toEqual(durable);
    });

    test("sync waits until a commit that did not wait for the disk is flushed", async () => {
      const store = await open(engine);
      await store.tx((tx) => addWorkspace(tx, "ws_synced"), { durable: false });
      if (engine === "sqlite") {
        // The commit is in the write-ahead log, which sync flushes.
        expect(existsSync(`${(store as SqliteStore).path}-wal`)).toBe(true);
        await store.sync();
        return;
      }
      // Everything inserted into the server's log so far, the commit's record included, is flushed once sync resolves.
      const lsn = (await store.get<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn"))!.lsn;
      await store.sync();
      expect(await store.get<{ flushed: number }>("SELECT pg_current_wal_flush_lsn() >= $lsn::pg_lsn AS flushed", { lsn })).toEqual({ flushed: 1 });
    });

    test("a refused statement rejects and leaves the store usable; ping answers", async () => {
      const store = await open(engine);
      await store.tx((tx) => addWorkspace(tx, "ws_dup"));
      expect(await rejection(store.tx((tx) => addWorkspace(tx, "ws_dup")))).toBeInstanceOf(Error);
      expect(await rejection(store.get("SELECT nope FROM workspaces"))).toBeInstanceOf(Error);
      expect(await store.ping()).toBe(true);
      expect((await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM workspaces"))!.n).toBe(1);
    });

    test("a notification wakes the listeners once its transaction commits, and never when it rolls back", async () => {
      const store = await open(engine);
      let woken = 0;
      const stop = store.listen("renders", () => (woken += 1));
      await store.tx(async (tx) => {
        tx.notify("renders");
        expect(woken).toBe(0);
      });
      await until(() => woken >= 1, 5_000);
      const before = woken;
      await rejection(
        store.tx(async (tx) => {
          tx.notify("renders");
          throw new Error("rolled back");
        }),
      );
      await Bun.sleep(200);
      expect(woken).toBe(before);
      stop();
    });
  });
}

describe("PostgresStore", () => {
  test("names a missing parameter and gives PostgreSQL's SQLSTATE", async () => {
    const store = await open("postgres");
    expect((await rejection(store.get("SELECT id FROM workspaces WHERE id = $id"))).message).toBe("statement parameter $id has no value");
    let error: unknown;
    try {
      await store.get("SELECT nope FROM workspaces");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe("42703");
  });

  test("a body that goes on after a failed statement outside a savepoint is told its transaction was rolled back", async () => {
    const store = await open("postgres");
    const attempt = store.tx(async (tx) => {
      await addWorkspace(tx, "ws_lost");
      await tx.get("SELECT nope FROM workspaces").catch(() => null);
    });
    // PostgreSQL answers such a COMMIT with ROLLBACK, not an error: the store must not answer as if it had committed.
    expect((await rejection(attempt)).message).toContain("the transaction was rolled back");
    expect(await ids(store)).toEqual([]);
    // Inside a savepoint the body goes on, and what it wrote before is kept.
    await store.tx(async (tx) => {
      await addWorkspace(tx, "ws_kept");
      await tx.savepoint((inner) => inner.get("SELECT nope FROM workspaces")).catch(() => null);
    });
    expect(await ids(store)).toEqual(["ws_kept"]);
  });

  test("two processes' transactions wait for each other only on the rows they both lock", async () => {
    const where = await stores.place("postgres");
    const url = where.databaseUrl!;
    const store = await stores.open(where, clock);
    await store.tx((tx) => addWorkspace(tx, "ws_held"));
    // The other process locks one workspace's row for 600 ms, then changes it and commits.
    const child = Bun.spawn(
      [
        process.execPath,
        "-e",
        `import { PostgresStore } from ${JSON.stringify(join(import.meta.dir, "../../src/store/postgres-store.ts"))};
         const s = await PostgresStore.open(${JSON.stringify(url)});
         await s.tx(async (tx) => {
           await tx.get("SELECT id FROM workspaces WHERE id = 'ws_held' FOR UPDATE");
           console.log("holding");
           await Bun.sleep(600);
           await tx.run("UPDATE workspaces SET name = 'changed' WHERE id = 'ws_held'");
         });
         await s.close();`,
      ],
      { stdout: "pipe", stderr: "inherit" },
    );
    const reader = child.stdout.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("holding");
    // Another workspace's row is written at once: no lock is shared by the whole store.
    let started = performance.now();
    await store.tx((tx) => addWorkspace(tx, "ws_free"));
    expect(performance.now() - started).toBeLessThan(300);
    // The held row is locked after the other's commit, and read as it left it.
    started = performance.now();
    const seen = await store.tx((tx) => tx.get("SELECT name FROM workspaces WHERE id = 'ws_held' FOR UPDATE"));
    expect(performance.now() - started).toBeGreaterThan(200);
    expect(seen).toEqual({ name: "changed" });
    expect(await child.exited).toBe(0);
  });
});
