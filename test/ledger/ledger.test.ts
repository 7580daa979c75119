/** The ledger's upserts on both engines — the allowance counters (src/ledger/counters.ts: the same statement text adds,
 * gives back without going below zero, and holds 64-bit values) and the usage days (src/ledger/usage-days.ts: a day's
 * renders add up) — on SQLite and on PostgreSQL. */
import { describe, expect, test } from "bun:test";
import { addToCounter, readCounter } from "../../src/ledger/counters";
import { recordRenderEnd } from "../../src/ledger/usage-days";
import { ManualClock } from "../../src/lib/clock";
import type { Store } from "../../src/store/store";
import { ENGINES, testStores, type Engine } from "../store/engines";

const clock = new ManualClock("2026-03-10T10:00:00.000Z");
const stores = testStores("ledger");

async function open(engine: Engine): Promise<Store> {
  const store = await stores.open(await stores.place(engine), clock);
  await store.tx((tx) => tx.run("INSERT INTO workspaces (id, name, slug, suspended, max_storage_bytes, created_at) VALUES ('ws_a', 'A', 'a', 0, 1000, $now)", {
    now: clock.now().toISOString(),
  }));
  return store;
}

for (const engine of ENGINES) {
  describe(`ledger upserts on ${engine}`, () => {
    test("add, give back, never below zero, past 2^32", async () => {
      const store = await open(engine);
      const add = (delta: number) => store.tx(async (tx) => addToCounter(tx, "ws_a", "documents", "2026-03", delta));
      const value = () => readCounter(store, "ws_a", "documents", "2026-03");
      await add(-4);
      expect(await value()).toBe(0);
      await add(3);
      await add(2);
      expect(await value()).toBe(5);
      await add(-7);
      expect(await value()).toBe(0);
      await add(2 ** 33);
      await add(1);
      expect(await value()).toBe(2 ** 33 + 1);
      expect(await readCounter(store, "ws_a", "test_renders", "2026-03")).toBe(0);
    });

    test("a day's usage adds up render by render", async () => {
      const store = await open(engine);
      const end = (status: "succeeded" | "failed", pages?: number, bytes?: number) =>
        store.tx(async (tx) => recordRenderEnd(tx, { workspaceId: "ws_a", day: "2026-03-10", status, pages, bytes }));
      await end("succeeded", 2, 1000);
      await end("succeeded", 3, 2 ** 33);
      await end("failed");
      expect(await store.get("SELECT renders_succeeded, renders_failed, renders_cancelled, pages, output_bytes FROM usage_days WHERE workspace_id = 'ws_a'")).toEqual({
        renders_succeeded: 2,
        renders_failed: 1,
        renders_cancelled: 0,
        pages: 5,
        output_bytes: 2 ** 33 + 1000,
      });
    });
  });
}
