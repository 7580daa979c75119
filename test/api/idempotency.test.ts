import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";
import { KEEP_MS, sweepIdempotencyKeys } from "../../src/http/idempotency";
import { until } from "../wait";

let t: TestServer;
let admin: string;

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1" });
  admin = await t.signIn();
});
afterAll(() => t.stop());

let counter = 0;
async function workspace(allowances: Record<string, number> = {}) {
  const ws = await t.makeWorkspace(`Idempotency ${++counter}`);
  const key = await t.makeKey(ws.id, ["render:create", "render:read"]);
  const res = await t.call(`/v1/companies/${ws.id}/allowances`, { method: "PUT", cookie: admin, body: { maxActiveRenders: 10, rendersPerMinute: 60, ...allowances } });
  expect(res.status).toBe(200);
  return { ...ws, key };
}

const renderCount = async (ws: string) => (await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM renders WHERE workspace_id = $ws", { ws }))!.n;
const documentsThisMonth = async (key: string) => (await t.call("/v1/render-limits", { key })).body.documentsThisMonth;
const withKey = (idempotencyKey: string) => ({ "idempotency-key": idempotencyKey });

describe("Idempotency-Key on POST /v1/renders", () => {
  test("the same key and body answers the first answer again (status and body) without rendering or charging again", async () => {
    const ws = await workspace();
    const body = { html: "<p>once</p>", metadata: { order: 7 } };
    const first = await t.call("/v1/renders?wait=30", { key: ws.key, body, headers: withKey("order-7") });
    expect(first.status).toBe(200);
    expect(first.body.status).toBe("succeeded");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // Keys in another order are the same body.
    const again = await t.call("/v1/renders?wait=30", { key: ws.key, body: { metadata: { order: 7 }, html: "<p>once</p>" }, headers: withKey("order-7") });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await renderCount(ws.id)).toBe(1);
    expect(await documentsThisMonth(ws.key)).toBe(1);
  });

  test("the answer kept is the answer given: a 202 is replayed as 202, not the render's later state", async () => {
    const ws = await workspace();
    const first = await t.call("/v1/renders", { key: ws.key, body: { html: "<p>later</p>" }, headers: withKey("later-1") });
    expect(first.status).toBe(202);
    await until(async () => (await t.server.store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id: first.body.id }))!.status === "succeeded");
    const again = await t.call("/v1/renders?wait=5", { key: ws.key, body: { html: "<p>later</p>" }, headers: withKey("later-1") });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(await renderCount(ws.id)).toBe(1);
  });

  test("the same key with another body, or on another route, is 409 CONFLICT saying to use a new key", async () => {
    const ws = await workspace();
    expect((await t.call("/v1/renders", { key: ws.key, body: { html: "<p>a</p>" }, headers: withKey("k-1") })).status).toBe(202);
    const other = await t.call("/v1/renders", { key: ws.key, body: { html: "<p>b</p>" }, headers: withKey("k-1") });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("CONFLICT");
    expect(other.body.error.message).toContain("send a new key for a new request");
    const batch = await t.call("/v1/renders/batch", { key: ws.key, body: { items: [{ html: "<p>a</p>" }] }, headers: withKey("k-1") });
    expect(batch.status).toBe(409);
    expect(await renderCount(ws.id)).toBe(1);
  });

  test("two requests with one key at once: one proceeds, the other is 409 until the first has answered", async () => {
    const ws = await workspace();
    const body = { html: "<p>at once</p>" };
    // With the worker stopped the render stays queued, so the first request is still waiting when the second comes.
    await t.server.worker.stop();
    try {
      const firstReply = t.call("/v1/renders?wait=2", { key: ws.key, body, headers: withKey("twice") });
      await until(async () => (await t.server.store.get("SELECT 1 FROM idempotency_keys WHERE workspace_id = $ws AND key = 'twice' AND final = 0", { ws: ws.id })) !== null);
      const second = await t.call("/v1/renders?wait=2", { key: ws.key, body, headers: withKey("twice") });
      expect(second.status).toBe(409);
      expect(second.body.error.message).toContain("still running");
      const first = await firstReply;
      expect(first.status).toBe(202);
      const third = await t.call("/v1/renders?wait=2", { key: ws.key, body, headers: withKey("twice") });
      expect(third.status).toBe(202);
      expect(third.body).toEqual(first.body);
      expect(await renderCount(ws.id)).toBe(1);
    } finally {
      await t.server.worker.start();
    }
  });

  test("a key is kept 24 hours per workspace, then swept; another workspace's same key is its own", async () => {
    const ws = await workspace();
    const other = await workspace();
    const body = { html: "<p>day</p>" };
    const first = await t.call("/v1/renders", { key: ws.key, body, headers: withKey("daily") });
    expect(first.status).toBe(202);
    const elsewhere = await t.call("/v1/renders", { key: other.key, body, headers: withKey("daily") });
    expect(elsewhere.status).toBe(202);
    expect(elsewhere.body.id).not.toBe(first.body.id);

    t.clock.advance(KEEP_MS - 1000);
    expect((await t.call("/v1/renders", { key: ws.key, body, headers: withKey("daily") })).body.id).toBe(first.body.id);
    expect(await sweepIdempotencyKeys({ store: t.server.store, clock: t.clock })).toBe(0);
    t.clock.advance(1000);
    // Expired: no longer replayed even before the sweep, and the key may name a new request.
    const next = await t.call("/v1/renders", { key: ws.key, body: { html: "<p>next day</p>" }, headers: withKey("daily") });
    expect(next.status).toBe(202);
    expect(next.body.id).not.toBe(first.body.id);
    // The other workspace's key (and the earlier tests' keys) are a day old now: swept; the first workspace's was
    // claimed anew a moment ago and stays.
    expect(await sweepIdempotencyKeys({ store: t.server.store, clock: t.clock })).toBeGreaterThanOrEqual(1);
    const kept = async (ws: string) => (await t.server.store.get("SELECT 1 FROM idempotency_keys WHERE workspace_id = $ws", { ws })) !== null;
    expect([await kept(ws.id), await kept(other.id)]).toEqual([true, false]);
  });

  test("a malformed key is 400 naming the header", async () => {
    const ws = await workspace();
    for (const bad of ["x".repeat(256), "has space", "é"]) {
      const res = await t.call("/v1/renders", { key: ws.key, body: { html: "<p>x</p>" }, headers: withKey(bad) });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ path: "/idempotency-key", message: "must be 1 to 255 visible ASCII characters" }]);
    }
    expect(await renderCount(ws.id)).toBe(0);
    expect((await t.call("/v1/renders", { key: ws.key, body: { html: "<p>x</p>" }, headers: withKey("x".repeat(255)) })).status).toBe(202);
  });

  test("an error the request met is replayed; a retryable one (RATE_LIMITED) lets the key go for the retry", async () => {
    const ws = await workspace({ rendersPerMinute: 1 });
    const missing = await t.call("/v1/renders", { key: ws.key, body: { templateId: "no-such-template" }, headers: withKey("missing") });
    expect(missing.status).toBe(404);
    const replayed = await t.call("/v1/renders", { key: ws.key, body: { templateId: "no-such-template" }, headers: withKey("missing") });
    expect(replayed.status).toBe(404);
    expect(replayed.body).toEqual(missing.body);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");

    expect((await t.call("/v1/renders", { key: ws.key, body: { html: "<p>1</p>" } })).status).toBe(202);
    const limited = await t.call("/v1/renders", { key: ws.key, body: { html: "<p>2</p>" }, headers: withKey("retry-me") });
    expect(limited.status).toBe(429);
    t.clock.advance(61_000);
    const retried = await t.call("/v1/renders", { key: ws.key, body: { html: "<p>2</p>" }, headers: withKey("retry-me") });
    expect(retried.status).toBe(202);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await renderCount(ws.id)).toBe(2);
  });

  test("a refused body is not kept, whether the schema or the route refused it: the corrected request may use the same key", async () => {
    const ws = await workspace();
    const bad = await t.call("/v1/renders", { key: ws.key, body: { html: "" }, headers: withKey("fix-me") });
    expect(bad.status).toBe(400);
    const twoSources = await t.call("/v1/renders", { key: ws.key, body: { html: "<p>x</p>", templateId: "t1" }, headers: withKey("fix-me") });
    expect(twoSources.status).toBe(400);
    expect(twoSources.body.error.details).toEqual([{ path: "", message: "give exactly one of templateId, document or html" }]);
    const fixed = await t.call("/v1/renders", { key: ws.key, body: { html: "<p>fixed</p>" }, headers: withKey("fix-me") });
    expect(fixed.status).toBe(202);
  });
});

describe("Idempotency-Key on POST /v1/renders/batch", () => {
  test("the same batch twice is one batch", async () => {
    const ws = await workspace();
    const body = { items: [{ html: "<p>1</p>" }, { html: "<p>2</p>" }] };
    const first = await t.call("/v1/renders/batch", { key: ws.key, body, headers: withKey("batch-1") });
    expect(first.status).toBe(202);
    const again = await t.call("/v1/renders/batch", { key: ws.key, body, headers: withKey("batch-1") });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await renderCount(ws.id)).toBe(2);
  });
});
