import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_ACTOR } from "../../src/auth/actor";
import { ManualClock } from "../../src/lib/clock";
import { createWorkspace, replaceAllowances, setSuspended } from "../../src/modules/workspaces/service";
import { RENDER_COLUMNS, type NewRender, type RenderRow } from "../../src/queue/queue";
import { StoreQueue } from "../../src/queue/store-queue";
import { isReferenced } from "../../src/store/file-deletions";
import { migrate } from "../../src/store/migrate";
import { openStore } from "../../src/store/open";
import { rejection } from "../wait";

const dataDir = mkdtempSync(join(tmpdir(), "renderd-queue-"));
const clock = new ManualClock();
const store = openStore(dataDir);
await migrate(store, clock);
const queue = new StoreQueue(store, clock, 30_000);
const ctx = { actor: CLI_ACTOR, requestId: "req_queue_test" };
const a = (await store.tx((tx) => createWorkspace(tx, clock, ctx, { name: "Acme" }))).id;
const b = (await store.tx((tx) => createWorkspace(tx, clock, ctx, { name: "Beta" }))).id;

afterAll(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function add(id: string, workspaceId: string, test = false, createdAt?: string): Promise<void> {
  clock.advance(1000);
  const render: NewRender = {
    id,
    workspaceId,
    test,
    source: "html",
    templateId: null,
    templateVersion: null,
    batchId: null,
    batchMerge: false,
    filename: "document.pdf",
    metadata: "{}",
    job: JSON.stringify({ id }),
    createdAt: createdAt ?? clock.now().toISOString(),
  };
  await store.tx((tx) => queue.enqueue(tx, render));
}

describe("StoreQueue", () => {
  test("claims take turns between workspaces (8.1 (5)), carry the job and test flag, and skip a suspended workspace, whose restoration wakes the workers", async () => {
    await add("rnd_a1", a);
    await add("rnd_a2", a, true);
    await add("rnd_b1", b);
    expect(await queue.depth()).toEqual({ queued: 3, processing: 0 });
    const first = await queue.claim();
    expect(first).toMatchObject({ renderId: "rnd_a1", workspaceId: a, test: false, job: JSON.stringify({ id: "rnd_a1" }) });
    expect(await queue.claim()).toMatchObject({ renderId: "rnd_b1" });
    // Restoring wakes the render workers (their queue may be known empty); suspending does not.
    let wakes = 0;
    const unlisten = store.listen("renders", () => wakes++);
    await setSuspended(store, clock, ctx, a, true);
    expect(await queue.claim()).toBeNull();
    expect(wakes).toBe(0);
    await setSuspended(store, clock, ctx, a, false);
    expect(wakes).toBe(1);
    await replaceAllowances(store, clock, ctx, a, { maxActiveRenders: 10, rendersPerMinute: 60, suspended: true });
    await replaceAllowances(store, clock, ctx, a, { maxActiveRenders: 10, rendersPerMinute: 60, suspended: false });
    expect(wakes).toBe(2);
    unlisten();
    expect(await queue.claim()).toMatchObject({ renderId: "rnd_a2", test: true });
    expect(await queue.depth()).toEqual({ queued: 0, processing: 3 });
  });

  test("complete, fail, cancel and requeue write each state once; complete and fail answer the row they wrote", async () => {
    const completed = await store.tx((tx) => queue.complete(tx, "rnd_a1", { outputSha256: "ab".repeat(32), pages: 1, bytes: 10 }));
    expect(completed).toMatchObject({ id: "rnd_a1", status: "succeeded", output_sha256: "ab".repeat(32), pages: 1, bytes: 10, finished_at: clock.now().toISOString() });
    expect(completed).toEqual((await store.get<RenderRow>(`SELECT ${RENDER_COLUMNS} FROM renders WHERE id = 'rnd_a1'`))!);
    expect(await isReferenced(store, "outputs", "ab".repeat(32))).toBe(true);
    expect(await queue.cancel("rnd_b1")).toBe(true);
    expect(await queue.inStatusAmong(["rnd_a1", "rnd_b1", "rnd_a2"], ["cancelled"])).toEqual(["rnd_b1"]);
    expect(await queue.fail("rnd_b1", "RENDER_FAILED", "too late")).toBeNull();
    expect(await queue.cancel("rnd_a1")).toBe(false);
    await queue.requeue("rnd_a2");
    expect(await queue.depth()).toEqual({ queued: 1, processing: 0 });
    expect(await queue.claim()).toMatchObject({ renderId: "rnd_a2" });
    expect(await queue.fail("rnd_a2", "RENDER_FAILED", "The render failed.")).toMatchObject({ id: "rnd_a2", status: "failed", error_code: "RENDER_FAILED", error_message: "The render failed." });
    const states = await store.all<{ id: string; status: string }>("SELECT id, status FROM renders ORDER BY id");
    expect(states).toEqual([
      { id: "rnd_a1", status: "succeeded" },
      { id: "rnd_a2", status: "failed" },
      { id: "rnd_b1", status: "cancelled" },
    ]);
  });

  test("recover puts a render left processing back once, and fails it the second time", async () => {
    await add("rnd_c1", b);
    expect(await queue.claim()).toMatchObject({ renderId: "rnd_c1" });
    expect(await queue.recover()).toEqual({ requeued: 1, failed: 0 });
    expect(await queue.claim()).toMatchObject({ renderId: "rnd_c1" });
    expect(await queue.recover()).toEqual({ requeued: 0, failed: 1 });
    expect(await queue.depth()).toEqual({ queued: 0, processing: 0 });
  });
});

describe("StoreQueue leases", () => {
  // Two processes on one store: `other` is the process that finds a lease run out.
  const LEASE = 30_000;
  const other = new StoreQueue(store, clock, LEASE);
  const status = async (id: string) =>
    (await store.get<{ status: string; recoveries: number; error_message: string | null }>("SELECT status, recoveries, error_message FROM renders WHERE id = $id", { id }))!;
  const complete = (q: StoreQueue, id: string) => store.tx((tx) => q.complete(tx, id, { outputSha256: "cd".repeat(32), pages: 1, bytes: 10 }));

  test("a claim whose lease ran out goes back to the queue and another process claims it; the holder never takes back its own", async () => {
    await add("rnd_l1", a);
    expect(await queue.claim()).toMatchObject({ renderId: "rnd_l1" });
    clock.advance(LEASE + 1);
    expect(await queue.takeBack()).toEqual({ requeued: 0, failed: 0 });
    expect(await queue.claim()).toBeNull();
    expect(await status("rnd_l1")).toMatchObject({ status: "processing", recoveries: 0 });
    // A claim takes back nothing itself (it would cost every claim a statement): the worker's poll asks.
    expect(await other.claim()).toBeNull();
    expect(await other.takeBack()).toEqual({ requeued: 1, failed: 0 });
    expect(await other.claim()).toMatchObject({ renderId: "rnd_l1" });
    expect(await status("rnd_l1")).toMatchObject({ status: "processing", recoveries: 1 });
  });

  test("a claim taken back is not the old holder's: its complete, fail and requeue are refused, renew reports it lost", async () => {
    expect(await complete(queue, "rnd_l1")).toBeNull();
    expect(await queue.fail("rnd_l1", "RENDER_FAILED", "late")).toBeNull();
    await queue.requeue("rnd_l1");
    expect(await queue.renew(["rnd_l1"])).toEqual(["rnd_l1"]);
    expect((await status("rnd_l1")).status).toBe("processing");
    expect(await other.renew(["rnd_l1"])).toEqual([]);
    expect(await complete(other, "rnd_l1")).toMatchObject({ status: "succeeded" });
    expect((await status("rnd_l1")).status).toBe("succeeded");
  });

  test("renewing keeps the lease: past the first expiry another process finds nothing to take", async () => {
    await add("rnd_l2", b);
    expect(await queue.claim()).toMatchObject({ renderId: "rnd_l2" });
    clock.advance((LEASE * 2) / 3);
    expect(await queue.renew(["rnd_l2"])).toEqual([]);
    clock.advance((LEASE * 2) / 3);
    expect(await other.takeBack()).toEqual({ requeued: 0, failed: 0 });
    expect(await other.claim()).toBeNull();
    expect(await status("rnd_l2")).toMatchObject({ status: "processing", recoveries: 0 });
    expect(await complete(queue, "rnd_l2")).toMatchObject({ status: "succeeded" });
  });

  test("back once, then failed: a render whose lease runs out a second time fails with the recovery rule's message", async () => {
    await add("rnd_l3", a);
    expect(await queue.claim()).toMatchObject({ renderId: "rnd_l3" });
    clock.advance(LEASE + 1);
    await other.takeBack();
    expect(await other.claim()).toMatchObject({ renderId: "rnd_l3" });
    clock.advance(LEASE + 1);
    expect(await queue.takeBack()).toEqual({ requeued: 0, failed: 1 });
    expect(await queue.claim()).toBeNull();
    expect(await status("rnd_l3")).toEqual({ status: "failed", recoveries: 1, error_message: "The render was interrupted twice by the service stopping unexpectedly." });
    expect(await complete(other, "rnd_l3")).toBeNull();
  });

  test("recover at start takes back every processing render at once, leased or not (one process owns a SQLite store)", async () => {
    await add("rnd_l4", b);
    expect(await queue.claim()).toMatchObject({ renderId: "rnd_l4" });
    expect(await other.recover()).toEqual({ requeued: 1, failed: 0 });
    expect(await queue.renew(["rnd_l4"])).toEqual(["rnd_l4"]);
    expect(await other.claim()).toMatchObject({ renderId: "rnd_l4" });
    expect(await other.cancel("rnd_l4")).toBe(true);
  });
});

describe("StoreQueue fairness across processes (8.1 (5))", async () => {
  // Two processes on one store: the turns are the store's, so neither serves a workspace twice while another waits.
  const one = new StoreQueue(store, clock, 30_000);
  const two = new StoreQueue(store, clock, 30_000);
  const c = (await store.tx((tx) => createWorkspace(tx, clock, ctx, { name: "Gamma" }))).id;
  const d = (await store.tx((tx) => createWorkspace(tx, clock, ctx, { name: "Delta" }))).id;

  test("claims alternate between workspaces whichever process makes them, and the turn is recorded with the claim", async () => {
    await add("rnd_f_c1", c);
    await add("rnd_f_c2", c);
    await add("rnd_f_c3", c);
    await add("rnd_f_d1", d);
    await add("rnd_f_d2", d);
    const picks: Array<string | null> = [];
    for (const q of [one, two, one, two, one, two]) picks.push((await q.claim())?.renderId ?? null);
    expect(picks).toEqual(["rnd_f_c1", "rnd_f_d1", "rnd_f_c2", "rnd_f_d2", "rnd_f_c3", null]);
    const turns = await store.all<{ workspace_id: string; turn: number }>("SELECT workspace_id, turn FROM queue_turns WHERE workspace_id IN ($c, $d)", { c, d });
    const last = Math.max(...(await store.all<{ turn: number; }>("SELECT turn FROM queue_turns")).map((r) => r.turn));
    expect(Object.fromEntries(turns.map((t) => [t.workspace_id, t.turn]))).toEqual({ [c]: last, [d]: last - 1 });
  });

  test("a claim made inside an outer transaction (the worker's group commit) records its turn with it", async () => {
    await add("rnd_f_c4", c);
    await add("rnd_f_d3", d);
    const rolledBack = store.tx(async (tx) => {
      expect(await one.claim(tx)).toMatchObject({ renderId: "rnd_f_d3" });
      throw new Error("rolled back");
    });
    expect((await rejection(rolledBack)).message).toBe("rolled back");
    expect(await store.get("SELECT status FROM renders WHERE id = 'rnd_f_d3'")).toEqual({ status: "queued" });
    expect(await store.tx((tx) => two.claim(tx))).toMatchObject({ renderId: "rnd_f_d3" });
    expect(await one.claim()).toMatchObject({ renderId: "rnd_f_c4" });
  });

  test("a render committed after a claim looked for waiting renders but created before its workspace's first, and claimed meanwhile, does not give that workspace a second turn", async () => {
    const e = (await store.tx((tx) => createWorkspace(tx, clock, ctx, { name: "Epsilon" }))).id;
    const f = (await store.tx((tx) => createWorkspace(tx, clock, ctx, { name: "Foxtrot" }))).id;
    await add("rnd_f_f1", f);
    expect(await one.claim()).toMatchObject({ renderId: "rnd_f_f1" });
    // Epsilon, never served, is first; Foxtrot waits with its second render.
    const before = clock.now().toISOString();
    await add("rnd_f_e2", e);
    await add("rnd_f_f2", f);
    // Between `late`'s look for waiting renders and its claim, a request that began earlier commits Epsilon's render of
    // an earlier time, and another process claims it: Epsilon has been served.
    let between: (() => Promise<void>) | undefined = async () => {
      await add("rnd_f_e1", e, false, before);
      expect(await two.claim()).toMatchObject({ renderId: "rnd_f_e1" });
    };
    const reads = new Proxy(store, {
      get(target, name, receiver) {
        if (name !== "get") return Reflect.get(target, name, receiver);
        return async (...args: Parameters<typeof store.get>) => {
          const row = await target.get(...args);
          const run = between;
          between = undefined;
          await run?.();
          return row;
        };
      },
    });
    const late = new StoreQueue(reads, clock, 30_000);
    expect(await late.claim()).toMatchObject({ renderId: "rnd_f_f2" });
    expect(between).toBeUndefined();
    expect(await one.claim()).toMatchObject({ renderId: "rnd_f_e2" });
  });
});
