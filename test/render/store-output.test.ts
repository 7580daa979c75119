/** storeOutputs (src/render/store-output.ts) on a real SQLite store and DATA_DIR: a PDF ends its render spooled in one
 * transaction and takes no hold; a sweep deleting the same bytes makes the render wait and store them held; a large PDF
 * is written before the end; a cancelled render stores nothing. */
import { afterEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { ManualClock } from "../../src/lib/clock";
import { sha256Hex } from "../../src/lib/hash";
import { createLogger } from "../../src/logger";
import type { RenderRow } from "../../src/queue/queue";
import { storeOutputs } from "../../src/render/store-output";
import { DiskFiles } from "../../src/store/files-disk";
import { SPOOL_MAX_BYTES, SpooledFiles } from "../../src/store/output-spool";
import type { Store, Tx } from "../../src/store/store";
import { testStores } from "../store/engines";
import { watchTx } from "../store/watch-tx";

const stores = testStores("store-output");
const opened: SpooledFiles[] = [];
afterEach(async () => {
  for (const files of opened.splice(0)) await files.close();
});

async function setUp() {
  const clock = new ManualClock("2026-03-10T10:00:00.000Z");
  const place = await stores.place("sqlite");
  const store = await stores.open(place, clock);
  const disk = new DiskFiles(place.dataDir);
  const files = new SpooledFiles(disk, store, clock);
  opened.push(files);
  const now = clock.now().toISOString();
  await store.tx((tx) => tx.run("INSERT INTO workspaces (id, name, slug, suspended, max_storage_bytes, created_at) VALUES ('ws_a', 'A', 'a', 0, 1000000, $now)", { now }));
  // Every statement of every transaction, and how many transactions there were.
  const statements: string[] = [];
  let transactions = 0;
  const observed: Store = Object.assign(Object.create(store), {
    tx: watchTx(store, () => (transactions++, { statement: (sql) => void statements.push(sql) })),
  });
  const deps = { store: observed, clock, files, log: createLogger("silent"), write: (end: (tx: Tx) => Promise<RenderRow | null>) => observed.tx(end) };
  // An end like the worker's: the render row names the first PDF; `cancelled` ends nothing (the render was cancelled).
  const ender =
    (id: string, cancelled = false) =>
    async (t: Tx, shas: string[]) => {
      if (cancelled) return null;
      await t.run("INSERT INTO renders (id, workspace_id, status, test, source, filename, created_at, output_sha256) VALUES ($id, 'ws_a', 'succeeded', 0, 'html', 'a.pdf', $now, $sha)", { id, now, sha: shas[0]! });
      return (await t.get<RenderRow>("SELECT * FROM renders WHERE id = $id", { id }))!;
    };
  return { clock, store, disk, files, deps, ender, statements, count: () => transactions };
}

const pdf = (text: string) => new TextEncoder().encode(`%PDF-1.7 ${text}`);

test("a PDF ends its render spooled in one transaction, taking no hold, and is written to its file after", async () => {
  const { store, disk, files, deps, ender, statements, count } = await setUp();
  const bytes = pdf("one transaction");
  const sha = sha256Hex(bytes);
  const row = await storeOutputs(deps, "rnd_1", [bytes], ender("rnd_1"));
  expect(row?.output_sha256).toBe(sha);
  expect(count()).toBe(1);
  expect(statements.filter((s) => s.includes("file_holds"))).toEqual([]);
  expect(statements.some((s) => s.startsWith("INSERT INTO output_spool"))).toBe(true);
  await files.settled();
  expect(existsSync(disk.path("outputs", sha))).toBe(true);
  expect(await store.all("SELECT sha256 FROM output_spool")).toEqual([]);
});

test("a pending deletion of the same bytes is cancelled; a sweep deleting them makes the render wait, then store them held", async () => {
  const { clock, store, disk, files, deps, ender } = await setUp();
  const [early, late] = [pdf("deleted earlier, pending"), pdf("being deleted")];
  const at = clock.now().toISOString();
  await store.tx(async (tx) => {
    await tx.run("INSERT INTO file_deletions (area, sha256, due_at, state) VALUES ('outputs', $sha, $at, 'pending')", { sha: sha256Hex(early), at });
    await tx.run("INSERT INTO file_deletions (area, sha256, due_at, state, started_at) VALUES ('outputs', $sha, $at, 'deleting', $at)", { sha: sha256Hex(late), at });
  });
  await storeOutputs(deps, "rnd_early", [early], ender("rnd_early"));
  expect(await store.all("SELECT sha256 FROM file_deletions")).toEqual([{ sha256: sha256Hex(late) }]);

  let ended = false;
  const storing = storeOutputs(deps, "rnd_late", [late], ender("rnd_late")).then((row) => ((ended = true), row));
  await Bun.sleep(300);
  expect(ended).toBe(false);
  expect(await store.get("SELECT id FROM renders WHERE id = 'rnd_late'")).toBeNull();
  // The sweep ends its deletion: the render holds the bytes, writes them, and ends.
  await store.tx((tx) => tx.run("DELETE FROM file_deletions WHERE sha256 = $sha", { sha: sha256Hex(late) }));
  expect((await storing)?.output_sha256).toBe(sha256Hex(late));
  expect(existsSync(disk.path("outputs", sha256Hex(late)))).toBe(true);
  await files.settled();
  expect(await store.all("SELECT sha256 FROM output_spool")).toEqual([]);
  expect(await store.all("SELECT sha256 FROM file_holds")).toEqual([]);
});

test("a PDF over SPOOL_MAX_BYTES is written durably before the end's transaction; a cancelled render stores nothing", async () => {
  const { store, disk, deps, ender, statements } = await setUp();
  const large = new Uint8Array(SPOOL_MAX_BYTES + 1).fill(7);
  const sha = sha256Hex(large);
  let fileFirst = false;
  const end = ender("rnd_large");
  await storeOutputs(deps, "rnd_large", [large], async (tx, shas) => ((fileFirst = existsSync(disk.path("outputs", sha))), end(tx, shas)));
  expect(fileFirst).toBe(true);
  expect(statements.some((s) => s.startsWith("INSERT INTO output_spool"))).toBe(false);
  expect(await store.all("SELECT sha256 FROM file_holds")).toEqual([]);

  const small = pdf("cancelled while it printed");
  expect(await storeOutputs(deps, "rnd_cancelled", [small], ender("rnd_cancelled", true))).toBeNull();
  expect(await store.all("SELECT sha256 FROM output_spool")).toEqual([]);
  expect(await store.all("SELECT sha256 FROM file_deletions")).toEqual([]);
  expect(existsSync(disk.path("outputs", sha256Hex(small)))).toBe(false);
});
