import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";
import { RECEIVER_ENV, startReceiver, type Receiver } from "../webhooks/receiver";
import { enqueueEndEvent } from "../../src/webhooks/events";
import type { Resolver } from "../../src/webhooks/destinations";
import { CLI_ACTOR } from "../../src/auth/actor";
import { createWorkspace } from "../../src/modules/workspaces/service";

// Fakes only at the edge we cannot reach (STYLE habit 10): DNS answers.
const DNS: Record<string, string[]> = {
  "hooks.example.com": ["93.184.215.14"],
  "inside.example.com": ["10.1.2.3"],
  "receiver.test": ["127.0.0.1"],
};
const resolve: Resolver = async (host) => DNS[host] ?? [];

let t: TestServer; // self-hosted relaxations on: http and private addresses (spec 6.7 last line)
let strict: TestServer; // spec 6.7 as the hosted service applies it
let receiver: Receiver;
let key: string;
let strictKey: string;
let workspaces = 0;

beforeAll(async () => {
  t = await startTestServer({ ...RECEIVER_ENV }, undefined, { resolve });
  strict = await startTestServer({}, undefined, { resolve });
  receiver = startReceiver();
  key = await t.makeKey(t.defaultWorkspaceId, ["webhook:manage", "audit:read"]);
  strictKey = await strict.makeKey(strict.defaultWorkspaceId, ["webhook:manage"]);
});
afterAll(async () => {
  receiver.stop();
  await t.stop();
  await strict.stop();
});

const ALL_TYPES = ["render.succeeded", "render.failed", "render.cancelled"];

async function create(body: unknown, as = key) {
  return t.call("/v1/webhook-endpoints", { key: as, body });
}

/** freshWorkspace gives a workspace with its own key, so the 10-endpoint cap of one test does not touch another. */
async function freshWorkspace(name: string) {
  const ws = await t.server.store.tx((tx) => createWorkspace(tx, t.clock, { actor: CLI_ACTOR, requestId: "test-setup" }, { name, slug: `${name.toLowerCase()}-${++workspaces}` }));
  return { id: ws.id, key: await t.makeKey(ws.id, ["webhook:manage", "audit:read"]) };
}

describe("POST /v1/webhook-endpoints", () => {
  test("answers 201 with the endpoint and its whsec_ secret once; the store holds only ciphertext", async () => {
    const res = await create({ url: `${receiver.url}/in`, eventTypes: ["render.succeeded", "render.failed"] });
    expect(res.status).toBe(201);
    const e = res.body;
    expect(e.id).toMatch(/^whe_/);
    expect(e.url).toBe(`${receiver.url}/in`);
    expect(e.description).toBeNull();
    expect(e.eventTypes).toEqual(["render.succeeded", "render.failed"]);
    expect(e.enabled).toBe(true);
    expect(e.createdAt).toBe(t.clock.now().toISOString());
    expect(e.updatedAt).toBe(e.createdAt);
    expect(e.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(e.secret.slice(6), "base64").length).toBe(32);
    expect(Object.keys(e).sort()).toEqual(["createdAt", "description", "enabled", "eventTypes", "id", "secret", "updatedAt", "url"]);
    const dump = JSON.stringify(await t.server.store.all("SELECT * FROM webhook_endpoints"));
    expect(dump).not.toContain(e.secret);
    expect(dump).not.toContain(e.secret.slice(6));
  });

  test("description and enabled are accepted on creation", async () => {
    const res = await create({ url: `${receiver.url}/off`, eventTypes: ["render.cancelled"], description: "Billing", enabled: false });
    expect(res.status).toBe(201);
    expect(res.body.description).toBe("Billing");
    expect(res.body.enabled).toBe(false);
  });

  test("bodies outside the schema are 400 with details", async () => {
    const url = `${receiver.url}/in`;
    for (const [body, path] of [
      [{ eventTypes: ["render.failed"] }, "/url"],
      [{ url }, "/eventTypes"],
      [{ url, eventTypes: [] }, "/eventTypes"],
      [{ url, eventTypes: ["render.failed", "render.failed"] }, "/eventTypes"],
      [{ url, eventTypes: ["render.started"] }, "/eventTypes/0"],
      [{ url, eventTypes: ["render.failed"], description: "x".repeat(1001) }, "/description"],
      [{ url, eventTypes: ["render.failed"], description: 5 }, "/description"],
      [{ url, eventTypes: ["render.failed"], enabled: "yes" }, "/enabled"],
      [{ url, eventTypes: ["render.failed"], secret: "whsec_AAAA" }, "/secret"],
      [{ url: "", eventTypes: ["render.failed"] }, "/url"],
    ] as const) {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("BAD_REQUEST");
      expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
    }
    expect((await create({ url, eventTypes: ALL_TYPES, description: "x".repeat(1000) })).status).toBe(201);
  });

  test("a refused destination is 400 BAD_REQUEST with the reason at /url (spec 4.7 (1), 6.7)", async () => {
    const cases: Array<[TestServer, string, string, string]> = [
      [t, key, "ftp://hooks.example.com/in", "The URL's scheme must be http or https."],
      [t, key, "https://user:pw@hooks.example.com/in", "The URL must not contain a user name or password."],
      [t, key, "https://nowhere.example.com/in", "The URL's host (nowhere.example.com) does not resolve."],
      [t, key, "not a url", "The URL is not valid."],
      [strict, strictKey, "http://hooks.example.com/in", "The URL must use https (http is accepted only when the server runs with WEBHOOK_ALLOW_HTTP=1)."],
      [strict, strictKey, "https://localhost/in", "The URL's host (localhost) is a localhost name."],
      [strict, strictKey, "https://inside.example.com/in", "The URL's host resolves to a private address (10.1.2.3)."],
      [strict, strictKey, "https://169.254.169.254/latest", "The URL's host is a cloud metadata address (169.254.169.254)."],
    ];
    for (const [server, k, url, reason] of cases) {
      const res = await server.call("/v1/webhook-endpoints", { key: k, body: { url, eventTypes: ["render.failed"] } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("BAD_REQUEST");
      expect(res.body.error.details).toEqual([{ path: "/url", message: reason }]);
    }
    const ok = await strict.call("/v1/webhook-endpoints", { key: strictKey, body: { url: "https://hooks.example.com/in", eventTypes: ["render.failed"] } });
    expect(ok.status).toBe(201);
  });

  test("the eleventh endpoint of a workspace is 409 CONFLICT (spec 4.7 (2))", async () => {
    const ws = await freshWorkspace("Cap");
    for (let i = 0; i < 10; i++) expect((await create({ url: `${receiver.url}/${i}`, eventTypes: ["render.failed"] }, ws.key)).status).toBe(201);
    const eleventh = await create({ url: `${receiver.url}/11`, eventTypes: ["render.failed"] }, ws.key);
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.error.code).toBe("CONFLICT");
    // Even with a refused URL, the cap answers first.
    expect((await create({ url: "ftp://x/", eventTypes: ["render.failed"] }, ws.key)).status).toBe(409);
    // Deleting one makes room again.
    const first = (await t.call("/v1/webhook-endpoints?limit=1", { key: ws.key })).body.items[0];
    await t.call(`/v1/webhook-endpoints/${first.id}`, { key: ws.key, method: "DELETE" });
    expect((await create({ url: `${receiver.url}/11`, eventTypes: ["render.failed"] }, ws.key)).status).toBe(201);
  });

  test("webhook:manage is needed: 401 without a credential, 403 without the scope or for a member", async () => {
    const body = { url: `${receiver.url}/in`, eventTypes: ["render.failed"] };
    expect((await t.call("/v1/webhook-endpoints", { body })).status).toBe(401);
    const renderKey = await t.makeKey(t.defaultWorkspaceId, ["render:create", "audit:read"]);
    const refused = await t.call("/v1/webhook-endpoints", { key: renderKey, body });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("webhook:manage");
    expect((await t.call("/v1/webhook-endpoints", { key: renderKey })).status).toBe(403);
    const member = await t.makeWorkspace("Members", "member");
    expect((await t.call("/v1/webhook-endpoints", { cookie: member.cookie })).status).toBe(403);
    const owner = await t.makeWorkspace("Owners", "owner");
    expect((await t.call("/v1/webhook-endpoints", { cookie: owner.cookie, body })).status).toBe(201);
  });
});

describe("GET /v1/webhook-endpoints", () => {
  test("pages newest first without secrets; GET one never shows the secret", async () => {
    const ws = await freshWorkspace("Listing");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1000);
      ids.push((await create({ url: `${receiver.url}/${i}`, eventTypes: ["render.failed"] }, ws.key)).body.id);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.call(`/v1/webhook-endpoints?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { key: ws.key });
      expect(res.status).toBe(200);
      for (const item of res.body.items) expect(item.secret).toBeUndefined();
      seen.push(...res.body.items.map((e: any) => e.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const one = await t.call(`/v1/webhook-endpoints/${ids[0]}`, { key: ws.key });
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(ids[0]);
    expect(one.body.secret).toBeUndefined();
    expect((await t.call("/v1/webhook-endpoints?limit=0", { key: ws.key })).status).toBe(400);
    expect((await t.call("/v1/webhook-endpoints?color=red", { key: ws.key })).status).toBe(400);
  });
});

describe("PATCH /v1/webhook-endpoints/{id}", () => {
  test("changes only the fields sent; description null removes it; updatedAt moves", async () => {
    const created = (await create({ url: `${receiver.url}/a`, eventTypes: ["render.failed"], description: "first" })).body;
    t.clock.advance(5000);
    const res = await t.call(`/v1/webhook-endpoints/${created.id}`, { key, method: "PATCH", body: { enabled: false } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created, secret: undefined, enabled: false, updatedAt: t.clock.now().toISOString() });
    expect(res.body.secret).toBeUndefined();
    const more = await t.call(`/v1/webhook-endpoints/${created.id}`, {
      key,
      method: "PATCH",
      body: { description: null, eventTypes: ["render.succeeded", "render.cancelled"], url: `${receiver.url}/b`, enabled: true },
    });
    expect(more.status).toBe(200);
    expect(more.body.description).toBeNull();
    expect(more.body.eventTypes).toEqual(["render.succeeded", "render.cancelled"]);
    expect(more.body.url).toBe(`${receiver.url}/b`);
    expect(more.body.enabled).toBe(true);
    expect((await t.call(`/v1/webhook-endpoints/${created.id}`, { key })).body).toEqual(more.body);
  });

  test("an empty patch changes nothing; extra fields and bad values are 400", async () => {
    const created = (await create({ url: `${receiver.url}/c`, eventTypes: ["render.failed"] })).body;
    t.clock.advance(1000);
    const same = await t.call(`/v1/webhook-endpoints/${created.id}`, { key, method: "PATCH", body: {} });
    expect(same.status).toBe(200);
    expect(same.body.updatedAt).toBe(created.updatedAt);
    for (const body of [{ secret: "x" }, { eventTypes: [] }, { enabled: null }, { url: 5 }, { description: "x".repeat(1001) }]) {
      const res = await t.call(`/v1/webhook-endpoints/${created.id}`, { key, method: "PATCH", body });
      expect(res.status).toBe(400);
    }
    expect((await t.call(`/v1/webhook-endpoints/${created.id}`, { key, method: "PATCH" })).status).toBe(400);
  });

  test("a URL change to a refused destination is 400 with the reason; the endpoint keeps its URL", async () => {
    const created = (await strict.call("/v1/webhook-endpoints", { key: strictKey, body: { url: "https://hooks.example.com/x", eventTypes: ["render.failed"] } })).body;
    const res = await strict.call(`/v1/webhook-endpoints/${created.id}`, { key: strictKey, method: "PATCH", body: { url: "https://inside.example.com/x", enabled: false } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: "/url", message: "The URL's host resolves to a private address (10.1.2.3)." }]);
    const after = (await strict.call(`/v1/webhook-endpoints/${created.id}`, { key: strictKey })).body;
    expect(after.url).toBe("https://hooks.example.com/x");
    expect(after.enabled).toBe(true);
  });
});

describe("rotate-secret, delete, audit", () => {
  test("rotation answers the endpoint with a new secret; neither secret is readable afterwards", async () => {
    const created = (await create({ url: `${receiver.url}/r`, eventTypes: ["render.failed"] })).body;
    t.clock.advance(1000);
    const rotated = await t.call(`/v1/webhook-endpoints/${created.id}/rotate-secret`, { key, method: "POST" });
    expect(rotated.status).toBe(200);
    expect(rotated.body.id).toBe(created.id);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    expect(rotated.body.updatedAt).toBe(t.clock.now().toISOString());
    const read = await t.call(`/v1/webhook-endpoints/${created.id}`, { key });
    expect(JSON.stringify(read.body)).not.toContain("whsec_");
    const list = await t.call("/v1/webhook-endpoints?limit=100", { key });
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
    const dump = JSON.stringify(await t.server.store.all("SELECT * FROM webhook_endpoints"));
    expect(dump).not.toContain(created.secret.slice(6));
    expect(dump).not.toContain(rotated.body.secret.slice(6));
  });

  test("delete answers {id, deleted: true}, discards the deliveries, then 404", async () => {
    const created = (await create({ url: `${receiver.url}/d`, eventTypes: ["render.failed"] })).body;
    await t.server.store.tx(async (tx) => enqueueEndEvent(tx, t.clock, { workspaceId: t.defaultWorkspaceId, renderId: "rnd_deleted1", status: "failed", test: false, errorCode: "RENDER_TIMEOUT" }));
    await t.server.webhooks.runOnce();
    const count = async () => (await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = $id", { id: created.id }))!.n;
    expect(await count()).toBe(1);
    const res = await t.call(`/v1/webhook-endpoints/${created.id}`, { key, method: "DELETE" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.id, deleted: true });
    expect(await count()).toBe(0);
    for (const [method, path] of [
      ["GET", `/v1/webhook-endpoints/${created.id}`],
      ["DELETE", `/v1/webhook-endpoints/${created.id}`],
      ["GET", `/v1/webhook-endpoints/${created.id}/deliveries`],
    ] as const) {
      expect((await t.call(path, { key, method })).status).toBe(404);
    }
  });

  test("another workspace's endpoint is 404 for every operation and absent from the list", async () => {
    const other = await freshWorkspace("Elsewhere");
    const theirs = (await create({ url: `${receiver.url}/theirs`, eventTypes: ["render.failed"] }, other.key)).body;
    for (const [method, path, body] of [
      ["GET", `/v1/webhook-endpoints/${theirs.id}`, undefined],
      ["PATCH", `/v1/webhook-endpoints/${theirs.id}`, { enabled: false }],
      ["DELETE", `/v1/webhook-endpoints/${theirs.id}`, undefined],
      ["POST", `/v1/webhook-endpoints/${theirs.id}/rotate-secret`, undefined],
      ["GET", `/v1/webhook-endpoints/${theirs.id}/deliveries`, undefined],
    ] as const) {
      const res = await t.call(path, { key, method, body });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    const list = await t.call("/v1/webhook-endpoints?limit=100", { key });
    expect(list.body.items.some((e: any) => e.id === theirs.id)).toBe(false);
    expect((await t.call(`/v1/webhook-endpoints/${theirs.id}`, { key: other.key })).body.enabled).toBe(true);
  });

  test("each change is audited with the request id; the audit never carries the URL's path or the secret", async () => {
    const created = (await create({ url: `${receiver.url}/audited?token=s3cret`, eventTypes: ["render.failed"] })).body;
    await t.call(`/v1/webhook-endpoints/${created.id}`, { key, method: "PATCH", body: { enabled: false }, headers: { "x-request-id": "patch-req-1" } });
    await t.call(`/v1/webhook-endpoints/${created.id}`, { key, method: "PATCH", body: { enabled: false } }); // no change, no event
    const rotated = (await t.call(`/v1/webhook-endpoints/${created.id}/rotate-secret`, { key, method: "POST" })).body;
    await t.call(`/v1/webhook-endpoints/${created.id}`, { key, method: "DELETE" });
    const res = await t.call(`/v1/audit-events?resourceId=${created.id}`, { key });
    const events = res.body.items;
    expect(events.map((e: any) => e.action)).toEqual([
      "webhook_endpoint.deleted",
      "webhook_endpoint.secret_rotated",
      "webhook_endpoint.updated",
      "webhook_endpoint.created",
    ]);
    for (const e of events) {
      expect(e.actorType).toBe("api_key");
      expect(e.resourceType).toBe("webhook_endpoint");
      expect(e.resourceName).toBe(receiver.url);
      expect(e.resourceDeleted).toBe(true);
    }
    expect(events[2].requestId).toBe("patch-req-1");
    expect(events[2].metadata).toEqual({ enabled: false });
    expect(events[3].metadata).toEqual({ eventTypes: "render.failed", enabled: true });
    const text = JSON.stringify(events);
    expect(text).not.toContain("s3cret");
    expect(text).not.toContain(created.secret);
    expect(text).not.toContain(rotated.secret);
  });
});

describe("GET /v1/webhook-endpoints/{id}/deliveries", () => {
  test("lists 2.9 records newest first, paged", async () => {
    const ws = await freshWorkspace("Deliveries");
    const endpoint = (await create({ url: `${receiver.url}/records`, eventTypes: ALL_TYPES }, ws.key)).body;
    const events: string[] = [];
    for (const [i, status] of (["succeeded", "failed", "cancelled"] as const).entries()) {
      t.clock.advance(1000);
      const event = await t.server.store.tx(async (tx) => enqueueEndEvent(tx, t.clock, { workspaceId: ws.id, renderId: `rnd_records${i}`, status, test: i === 2, errorCode: "LIMIT_EXCEEDED" }));
      events.push(event!);
    }
    await t.server.webhooks.runOnce();
    const first = await t.call(`/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=2`, { key: ws.key });
    expect(first.status).toBe(200);
    expect(first.body.items.map((d: any) => d.eventId)).toEqual([events[2], events[1]]);
    const second = await t.call(`/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=2&cursor=${first.body.nextCursor}`, { key: ws.key });
    expect(second.body.items.map((d: any) => d.eventId)).toEqual([events[0]]);
    expect(second.body.nextCursor).toBeUndefined();
    const d = second.body.items[0];
    const createdAt = new Date(t.clock.now().getTime() - 2000).toISOString();
    expect(d).toEqual({
      id: expect.stringMatching(/^whd_/),
      eventId: events[0],
      eventType: "render.succeeded",
      renderId: "rnd_records0",
      status: "succeeded",
      attempts: 1,
      lastStatusCode: 204,
      lastAttemptAt: expect.any(String),
      createdAt,
    });
    // Attempted by runOnce, or earlier by the server's own loop, which a new event wakes (on PostgreSQL through NOTIFY)
    // while the test is still adding the others: at one of the clock's times between the event and now.
    expect([createdAt, new Date(t.clock.now().getTime() - 1000).toISOString(), t.clock.now().toISOString()]).toContain(d.lastAttemptAt);
    expect(receiver.requests.find((r) => r.headers["webhook-id"] === d.id)).toBeDefined();
  });
});
