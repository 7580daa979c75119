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

  test("0017 counts the renders a store already keeps by workspace, kind and minute (the rendersPerMinute bound)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-store-"));
    const store = openStore(dir);
    try {
      const clock = new ManualClock("2026-03-10T10:00:00.000Z");
      await migrate(store, clock);
      // A store at 0016 with renders: 0017 undone, to run again.
      await store.tx(async (tx) => {
        await tx.run("INSERT INTO workspaces (id, name, slug, suspended, max_storage_bytes, created_at) VALUES ('ws_a', 'A', 'a', 0, 1000, '2026-03-10T09:00:00.000Z')");
        for (const [i, test, at] of [[1, 0, "09:59:01.000"], [2, 0, "09:59:59.999"], [3, 1, "09:59:30.000"], [4, 0, "10:00:00.000"]] as const)
          await tx.run(`INSERT INTO renders (id, workspace_id, status, test, source, filename, metadata, created_at) VALUES ($id, 'ws_a', 'queued', $test, 'html', 'a.pdf', '{}', $at)`, {
            id: `rnd_${i}`,
            test,
            at: `2026-03-10T${at}Z`,
          });
        await tx.run("DROP TABLE render_minutes");
        await tx.run("DELETE FROM schema_migrations WHERE version = 17");
      });
      expect(await migrate(store, clock)).toEqual(["0017_render_minutes"]);
      expect(await store.all("SELECT test, minute, renders FROM render_minutes ORDER BY minute, test")).toEqual([
        { test: 0, minute: "2026-03-10T09:59", renders: 2 },
        { test: 1, minute: "2026-03-10T09:59", renders: 1 },
        { test: 0, minute: "2026-03-10T10:00", renders: 1 },
      ]);
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
