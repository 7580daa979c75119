/** The fair pick of spec 8.1 (5) as a claim makes it: src/queue/fairness.ts's order inside StoreQueue's one claiming
 * statement, on both engines. */
import { describe, expect, test } from "bun:test";
import { CLI_ACTOR } from "../../src/auth/actor";
import { ManualClock } from "../../src/lib/clock";
import { createWorkspace } from "../../src/modules/workspaces/service";
import { StoreQueue } from "../../src/queue/store-queue";
import { ENGINES, holdRows, testStores } from "../store/engines";

const clock = new ManualClock("2026-01-01T00:00:00.000Z");
const stores = testStores("fairness");
const ctx = { actor: CLI_ACTOR, requestId: "req_fairness" };

type Waiting = { ws: "a" | "b" | "c" | "d"; id: string; createdAt: string };
const waiting = (ws: Waiting["ws"], id: string, createdAt: string): Waiting => ({ ws, id, createdAt });

const a1 = waiting("a", "rnd_a1", "2026-01-01T00:00:01.000Z");
const a2 = waiting("a", "rnd_a2", "2026-01-01T00:00:01.500Z");
const b1 = waiting("b", "rnd_b1", "2026-01-01T00:00:02.000Z");
const c1 = waiting("c", "rnd_c1", "2026-01-01T00:00:03.000Z");
const sameTimeLow = waiting("d", "rnd_0d", "2026-01-01T00:00:01.000Z");

// Workspaces take turns; within a turn, one never served comes first, then the oldest waiting render. `served` is the turn
// each workspace was last served in.
const cases: { name: string; waiting: Waiting[]; served: [Waiting["ws"], number][]; want: Waiting | undefined }[] = [
  { name: "nothing waits", waiting: [], served: [], want: undefined },
  { name: "one workspace gets every pick", waiting: [a1], served: [["a", 7]], want: a1 },
  { name: "none served yet: the oldest render", waiting: [c1, a1, b1], served: [], want: a1 },
  { name: "a workspace never served goes before one served", waiting: [a1, c1], served: [["a", 1]], want: c1 },
  { name: "the workspace served longest ago goes first", waiting: [a1, b1, c1], served: [["a", 3], ["b", 1], ["c", 2]], want: b1 },
  { name: "served in the same turn: the oldest render", waiting: [c1, b1], served: [["b", 2], ["c", 2]], want: b1 },
  { name: "created at the same time: the smaller render id", waiting: [a1, sameTimeLow], served: [], want: sameTimeLow },
  { name: "memory of a workspace that waits no more changes nothing", waiting: [b1, c1], served: [["a", 0], ["b", 5]], want: c1 },
  { name: "a workspace's own second render waits behind its first", waiting: [a2, a1], served: [], want: a1 },
];

for (const engine of ENGINES)
  describe(`the fair pick on ${engine} (spec 8.1 (5))`, async () => {
    const place = await stores.place(engine);
    const store = await stores.open(place, clock);
    const queue = new StoreQueue(store, clock, 30_000);
    const workspaces: Record<Waiting["ws"], string> = { a: "", b: "", c: "", d: "" };
    for (const ws of ["a", "b", "c", "d"] as const) workspaces[ws] = (await store.tx((tx) => createWorkspace(tx, clock, ctx, { name: `Fair ${ws}` }))).id;

    /** setUp leaves exactly `renders` waiting and the turns `served` recorded. */
    const setUp = (renders: Waiting[], served: [Waiting["ws"], number][]) =>
      store.tx(async (tx) => {
        await tx.run("DELETE FROM renders");
        await tx.run("DELETE FROM queue_turns");
        for (const r of renders)
          await queue.enqueue(tx, { id: r.id, workspaceId: workspaces[r.ws], test: false, source: "html", templateId: null, templateVersion: null, batchId: null, batchMerge: false, filename: "document.pdf", metadata: "{}", job: "{}", createdAt: r.createdAt });
        for (const [ws, turn] of served) tx.write("INSERT INTO queue_turns (workspace_id, turn) VALUES ($ws, $turn)", { ws: workspaces[ws], turn });
      });

    for (const c of cases)
      test(c.name, async () => {
        await setUp(c.waiting, c.served);
        expect((await queue.claim())?.renderId ?? null).toBe(c.want?.id ?? null);
      });

    test("the claim records the turn: the other workspace's first goes next", async () => {
      await setUp([a1, a2, b1], [["b", 4]]);
      const picks: Array<string | null> = [];
      for (let i = 0; i < 4; i++) picks.push((await queue.claim())?.renderId ?? null);
      expect(picks).toEqual(["rnd_a1", "rnd_b1", "rnd_a2", null]);
    });

    if (engine === "postgres")
      test("a first render another process is claiming is skipped for the next workspace's first, not for its own workspace's second", async () => {
        await setUp([a1, a2, b1], [["b", 4]]);
        const other = await stores.open(place, clock);
        const claiming = await holdRows(other, "UPDATE renders SET lease_owner = 'prc_other' WHERE id = 'rnd_a1'");
        expect((await queue.claim())?.renderId).toBe("rnd_b1");
        expect((await queue.claim())?.renderId).toBe("rnd_a2");
        await claiming.release();
        expect((await queue.claim())?.renderId).toBe("rnd_a1");
      });
  });
