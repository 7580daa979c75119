import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../src/lib/clock";
import { migrate } from "../../src/store/migrate";
import { MIGRATIONS } from "../../src/store/migrations";
import { openStore } from "../../src/store/open";

describe("store", () => {
  test("opens with WAL, foreign keys, synchronous FULL and a busy timeout", async () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-store-"));
    const store = openStore(dir);
    try {
      // The writer's settings: a write transaction's handle reads them.
      const pragma = (name: string) => store.tx((tx) => tx.get(`PRAGMA ${name}`));
      expect(await pragma("journal_mode")).toEqual({ journal_mode: "wal" });
      expect(await pragma("foreign_keys")).toEqual({ foreign_keys: 1 });
      expect(await pragma("synchronous")).toEqual({ synchronous: 2 });
      expect(await pragma("busy_timeout")).toEqual({ timeout: 5000 });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("migrate applies every migration once, in order, and records it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-store-"));
    const store = openStore(dir);
    try {
      const clock = new ManualClock();
      expect(await migrate(store, clock)).toEqual(MIGRATIONS.map((m) => m.name));
      expect(await migrate(store, clock)).toEqual([]);
      const rows = await store.all<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a store newer than the binary is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-store-"));
    const store = openStore(dir);
    try {
      const clock = new ManualClock();
      await migrate(store, clock);
      await store.tx((tx) => tx.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 'x')"));
      await expect(migrate(store, clock)).rejects.toThrow("newer than this binary");
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a failed transaction leaves nothing half-written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-store-"));
    const store = openStore(dir);
    try {
      await migrate(store, new ManualClock());
      await expect(store.tx(async (tx) => {
          await tx.run("INSERT INTO workspaces (id, name, slug, created_at) VALUES ('ws_a', 'A', 'a', 'now')");
          await tx.run("INSERT INTO workspaces (id, name, slug, created_at) VALUES ('ws_b', 'B', 'a', 'now')");
        })).rejects.toThrow();
      expect((await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM workspaces"))!.n).toBe(0);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
