import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite-store";

const dir = mkdtempSync(join(tmpdir(), "renderd-store-open-"));
const store = new SqliteStore(join(dir, "renderd.db"));
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("Store statements", () => {
  // bun:sqlite's own cache (db.query) keeps 20 statements; a render's cycle uses more.
  const texts = Array.from({ length: 40 }, (_, i) => `SELECT ${i} AS n, $x AS x`);

  test("a statement is prepared once, however many other statements are used between two uses", async () => {
    const first = store.statement(texts[0]!);
    for (const sql of texts) expect(await store.get<{ n: number; x: string }>(sql, { x: "a" })).toEqual({ n: Number(sql.split(" ")[1]), x: "a" });
    expect(store.statement(texts[0]!)).toBe(first);
  });

  test("past 500 statement texts the cache starts again, and every statement still answers", async () => {
    for (let i = 0; i < 520; i++) expect(await store.get<{ n: number }>(`SELECT ${i} AS n`)).toEqual({ n: i });
    expect(await store.get<{ n: number; x: string }>(texts[1]!, { x: "b" })).toEqual({ n: 1, x: "b" });
  });
});
