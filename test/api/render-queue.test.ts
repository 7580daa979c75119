import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { StoreQueue } from "../../src/queue/store-queue";
import { startTestServer, type TestServer } from "../harness";
import { slowHtml } from "../render/fixtures";
import { until } from "../wait";
import { RECEIVER_ENV, type Receiver } from "../webhooks/receiver";
import { subscribeToEnds } from "../webhooks/subscribe";

// One page: renders run one at a time, so the order they end in is the order the scheduler picked them.
let t: TestServer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1", ...RECEIVER_ENV });
});
afterAll(async () => {
  receivers.forEach((r) => r.stop());
  await t.stop();
});

const status = async (server: TestServer, id: string) => (await server.server.store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id }))?.status;

// Each workspace's renders are ended with an end event (a row only for the endpoints that receive it): the order of
// the events is the order the renders ended.
async function workspaceKey(name: string, server = t): Promise<{ id: string; key: string }> {
  const ws = await server.makeWorkspace(name);
  receivers.push(await subscribeToEnds(server, ws.id));
  return { id: ws.id, key: await server.makeKey(ws.id, ["render:create", "render:read", "render:cancel"]) };
}

describe("fair scheduling (spec 8.1 (5))", () => {
  test("three workspaces: every workspace's first waiting render runs before any workspace's second", async () => {
    const [a, b, c] = [await workspaceKey("Fair A"), await workspaceKey("Fair B"), await workspaceKey("Fair C")];
    await t.server.worker.stop();
    const made: Record<string, string> = {};
    // A queues all of its renders first, then B, then C: first come, first served would run A's three first.
    for (const [name, ws] of [["a", a], ["b", b], ["c", c]] as const)
      for (const n of [1, 2, 3]) made[(await t.call("/v1/renders", { key: ws.key, body: { html: `<p>${name}${n}</p>` } })).body.id] = `${name}${n}`;
    await t.server.worker.start();
    await until(async () => (await Promise.all(Object.keys(made).map((id) => status(t, id)))).every((s) => s === "succeeded"), 60_000);
    // Events are written in the transaction of each final state, and one process's ids sort in the order it made them
    // (lib/ids.ts): their id order is the order renders ended, on both engines.
    const ended = (await t.server.store
      .all<{ render_id: string; }>("SELECT render_id FROM webhook_events ORDER BY id"))
      .map((e) => made[e.render_id])
      .filter(Boolean);
    expect(ended).toEqual(["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]);
  });

  test("an otherwise idle system lets one workspace use every worker", async () => {
    const wide = await startTestServer({ RENDER_WORKERS: "2", ...RECEIVER_ENV });
    try {
      const ws = await workspaceKey("Alone", wide);
      const ids: string[] = [];
      for (const n of [1, 2]) ids.push((await wide.call("/v1/renders", { key: ws.key, body: { html: slowHtml(1, `alone${n}`) } })).body.id);
      await until(async () => (await Promise.all(ids.map((id) => status(wide, id)))).every((s) => s === "processing"), 30_000);
      expect(wide.server.pool.stats().busy).toBe(2);
      await until(async () => (await Promise.all(ids.map((id) => status(wide, id)))).every((s) => s === "succeeded"), 60_000);
    } finally {
      await wide.stop();
    }
  });
});

describe("crashes", () => {
  test("Chromium killed mid-render: the render is printed again on the new browser and succeeds", async () => {
    const ws = await workspaceKey("Crash");
    const res = await t.call("/v1/renders", { key: ws.key, body: { html: slowHtml(2, "survivor") } });
    await until(async () => await status(t, res.body.id) === "processing");
    await Bun.sleep(300);
    const [browser] = t.server.pool.browserPids();
    process.kill(browser!, "SIGKILL");
    await until(async () => await status(t, res.body.id) !== "processing", 60_000);
    expect((await t.call(`/v1/renders/${res.body.id}`, { key: ws.key })).body).toMatchObject({ status: "succeeded" });
    expect(t.server.pool.browserPids()[0]).not.toBe(browser);
    expect(t.server.pool.stats().browserRestarts).toBeGreaterThanOrEqual(1);
  });

  test("a restart with renders queued and processing: every one finishes", async () => {
    const ws = await workspaceKey("Restart");
    const ids: string[] = [];
    ids.push((await t.call("/v1/renders", { key: ws.key, body: { html: slowHtml(1, "first") } })).body.id);
    for (const n of [2, 3]) ids.push((await t.call("/v1/renders", { key: ws.key, body: { html: `<p>queued ${n}</p>` } })).body.id);
    await until(async () => await status(t, ids[0]!) === "processing");
    await t.restart();
    await until(async () => (await Promise.all(ids.map((id) => status(t, id)))).every((s) => s === "succeeded"), 60_000);
    // A stop is not a crash: nothing counts against the render's one recovery.
    expect((await t.server.store.get<{ n: number }>("SELECT SUM(recoveries) AS n FROM renders WHERE id IN ($a, $b, $c)", { a: ids[0]!, b: ids[1]!, c: ids[2]! }))!.n).toBe(0);
  });

  test("after the process died, renders left processing are queued again once; the second time they fail", async () => {
    const ws = await workspaceKey("Died");
    await t.server.worker.stop();
    const once = (await t.call("/v1/renders", { key: ws.key, body: { html: "<p>interrupted once</p>" } })).body.id;
    const twice = (await t.call("/v1/renders", { key: ws.key, body: { html: "<p>interrupted twice</p>" } })).body.id;
    // What a process killed mid-render leaves behind: rows still `processing`, one of them already recovered once.
    await t.server.store.tx((tx) => tx.run("UPDATE renders SET status = 'processing', started_at = $now WHERE id IN ($a, $b)", { now: t.clock.now().toISOString(), a: once, b: twice }));
    await t.server.store.tx((tx) => tx.run("UPDATE renders SET recoveries = 1 WHERE id = $id", { id: twice }));
    await t.restart();
    await until(async () => await status(t, once) === "succeeded" && await status(t, twice) === "failed", 30_000);
    const failed = (await t.call(`/v1/renders/${twice}`, { key: ws.key })).body;
    expect(failed.error.code).toBe("RENDER_FAILED");
    expect((await t.server.store.get<{ type: string }>("SELECT type FROM webhook_events WHERE render_id = $id", { id: twice }))!.type).toBe("render.failed");
  });
});

describe("leases (docs/architecture.md, the queue)", () => {
  test("the worker renews its claims while printing; a claim another process took back is dropped, nothing written", async () => {
    // A lease of 3 s: the worker renews every second (real time), each time to the manual clock's now + 3 s.
    const leased = await startTestServer({ RENDER_WORKERS: "1", RENDER_LEASE_MS: "3000", ...RECEIVER_ENV });
    try {
      const ws = await workspaceKey("Leased", leased);
      const id = (await leased.call("/v1/renders", { key: ws.key, body: { html: slowHtml(6, "leased") } })).body.id;
      await until(async () => await status(leased, id) === "processing");
      // Another process on the same store, as issue 15 will have.
      const other = new StoreQueue(leased.server.store, leased.clock, 3000);
      leased.clock.advance(2000);
      await Bun.sleep(1300);
      leased.clock.advance(2000);
      // Past the first lease, but renewed meanwhile: nothing to take back.
      expect(await other.takeBack()).toEqual({ requeued: 0, failed: 0 });

      leased.clock.advance(10_000);
      expect(await other.takeBack()).toEqual({ requeued: 1, failed: 0 });
      expect(await other.claim()).toMatchObject({ renderId: id });
      await until(() => leased.server.worker.inFlight().length === 0, 5_000);
      const row = await leased.server.store.get<{ status: string; lease_owner: string; recoveries: number }>("SELECT status, lease_owner, recoveries FROM renders WHERE id = $id", { id })!;
      expect(row).toEqual({ status: "processing", lease_owner: other.owner, recoveries: 1 });
      expect(await leased.server.store.get("SELECT 1 FROM webhook_events WHERE render_id = $id", { id })).toBeNull();
      expect(await other.cancel(id)).toBe(true);
    } finally {
      await leased.stop();
    }
  });
});
