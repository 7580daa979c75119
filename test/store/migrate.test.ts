import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../src/lib/clock";
import { migrate } from "../../src/store/migrate";
import { MIGRATIONS } from "../../src/store/migrations";
import { openStore } from "../../src/store/open";

describe("store", () => {
  test("opens with WAL, foreign keys, synchronous FULL and a busy timeout", () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-store-"));
    const store = openStore(dir);
    try {
      expect(store.get<{ journal_mode: string }>("PRAGMA journal_mode")!.journal_mode).toBe("wal");
      expect(store.get<{ foreign_keys: number }>("PRAGMA foreign_keys")!.foreign_keys).toBe(1);
      expect(store.get<{ synchronous: number }>("PRAGMA synchronous")!.synchronous).toBe(2);
      expect(store.get<{ timeout: number }>("PRAGMA busy_timeout")!.timeout).toBe(5000);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("migrate applies every migration once, in order, and records it", () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-store-"));
    const store = openStore(dir);
    try {
      const clock = new ManualClock();
      expect(migrate(store, clock)).toEqual(MIGRATIONS.map((m) => m.name));
      expect(migrate(store, clock)).toEqual([]);
      const rows = store.all<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a store newer than the binary is refused", () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-store-"));
    const store = openStore(dir);
    try {
      const clock = new ManualClock();
      migrate(store, clock);
      store.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 'x')");
      expect(() => migrate(store, clock)).toThrow("newer than this binary");
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a failed transaction leaves nothing half-written", () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-store-"));
    const store = openStore(dir);
    try {
      migrate(store, new ManualClock());
      expect(() =>
        store.tx(() => {
          store.run("INSERT INTO workspaces (id, name, slug, created_at) VALUES ('ws_a', 'A', 'a', 'now')");
          store.run("INSERT INTO workspaces (id, name, slug, created_at) VALUES ('ws_b', 'B', 'a', 'now')");
        }),
      ).toThrow();
      expect(store.get<{ n: number }>("SELECT COUNT(*) AS n FROM workspaces")!.n).toBe(0);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
