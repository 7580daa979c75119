/** The ledger's upserts on both engines — the allowance counters (src/ledger/counters.ts: the same statement text adds,
 * gives back without going below zero, and holds 64-bit values), the usage days (src/ledger/usage-days.ts: a day's
 * renders add up) and the renders per minute (src/ledger/render-minutes.ts: the bound of the last 60 seconds, and its
 * sweep) — on SQLite and on PostgreSQL. */
import { describe, expect, test } from "bun:test";
import { addToCounter, readCounter, renderCounters } from "../../src/ledger/counters";
import { countRenders, rendersAtMost, sweepRenderMinutes } from "../../src/ledger/render-minutes";
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

    test("a render request's counters in one read: this month's documents and today's test renders, no other period or counter", async () => {
      const store = await open(engine);
      const add = (counter: "documents" | "test_renders" | "template_conversions", period: string, delta: number) =>
        store.tx(async (tx) => addToCounter(tx, "ws_a", counter, period, delta));
      const now = new Date("2026-03-10T10:00:00.000Z");
      expect(await renderCounters(store, "ws_a", now)).toEqual({ documentsThisMonth: 0, testRendersToday: 0 });
      await add("documents", "2026-03", 7);
      await add("documents", "2026-02", 100);
      await add("test_renders", "2026-03-10", 3);
      await add("test_renders", "2026-03-09", 50);
      await add("template_conversions", "2026-03", 9);
      expect(await renderCounters(store, "ws_a", now)).toEqual({ documentsThisMonth: 7, testRendersToday: 3 });
      expect(await renderCounters(store, "ws_a", new Date("2026-03-09T23:59:59.999Z"))).toEqual({ documentsThisMonth: 7, testRendersToday: 50 });
      await add("documents", "2026-03", 2 ** 33);
      expect(await store.tx((tx) => renderCounters(tx, "ws_a", now))).toEqual({ documentsThisMonth: 2 ** 33 + 7, testRendersToday: 3 });
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

    test("the renders of a minute: this minute's and the last one's are the bound of the last 60 seconds; older ones are swept", async () => {
      const store = await open(engine);
      const at = (time: string) => new Date(`2026-03-10T${time}Z`);
      const count = (test: boolean, time: string, renders: number) => store.tx(async (tx) => countRenders(tx, "ws_a", test, at(time), renders));
      await count(false, "09:58:59.999", 100);
      await count(false, "09:59:00.000", 2);
      await count(false, "09:59:59.999", 1);
      await count(true, "10:00:00.000", 1);
      await count(false, "10:00:30.000", 4);
      await count(false, "10:00:30.001", 1);
      // At 10:00:30 the last 60 s began at 09:59:30, inside the last minute: its renders are all counted, 09:58's none.
      expect(await rendersAtMost(store, "ws_a", at("10:00:30.500"))).toEqual({ real: 8, test: 1 });
      expect(await rendersAtMost(store, "ws_a", at("10:01:00.000"))).toEqual({ real: 5, test: 1 });
      expect(await store.tx((tx) => sweepRenderMinutes(tx, at("10:00:59.000")))).toBe(1);
      expect(await store.all("SELECT minute, renders FROM render_minutes WHERE test = 0 ORDER BY minute")).toEqual([
        { minute: "2026-03-10T09:59", renders: 3 },
        { minute: "2026-03-10T10:00", renders: 5 },
      ]);
    });
  });
}
