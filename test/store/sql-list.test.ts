import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/store/open";
import { inList } from "../../src/store/sql-list";

const dir = mkdtempSync(join(tmpdir(), "renderd-sql-list-"));
const store = openStore(dir);
await store.tx((tx) => tx.run("CREATE TABLE t (id TEXT PRIMARY KEY)"));
for (const id of ["a", "b", "c", "it's"]) await store.tx((tx) => tx.run("INSERT INTO t (id) VALUES ($id)", { id }));

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ids = async (where: string, params = {}) => (await store.all<{ id: string; }>(`SELECT id FROM t WHERE ${where} ORDER BY id`, params)).map((r) => r.id);

describe("inList", () => {
  test("one parameter per value, named apart from the statement's others", () => {
    expect(inList("t.id", ["a", "it's"], "busy")).toEqual({ sql: "t.id IN ($busy0, $busy1)", params: { busy0: "a", busy1: "it's" } });
  });

  test("matches the listed values, and NOT (…) the others; a quote is a value, not SQL", async () => {
    const list = inList("id", ["c", "it's", "zz"], "v");
    expect(await ids(list.sql, list.params)).toEqual(["c", "it's"]);
    expect(await ids(`NOT (${list.sql})`, list.params)).toEqual(["a", "b"]);
  });

  test("an empty list matches nothing, and NOT (…) of it everything, without the `IN ()` PostgreSQL refuses", async () => {
    const empty = inList("id", [], "v");
    expect(empty).toEqual({ sql: "1 = 0", params: {} });
    expect(await ids(empty.sql)).toEqual([]);
    expect(await ids(`NOT (${empty.sql})`)).toEqual(["a", "b", "c", "it's"]);
  });
});
