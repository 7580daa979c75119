import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";
import { SCOPES } from "../../src/auth/scopes";

let t: TestServer;
let cookie: string;
beforeAll(async () => {
  t = await startTestServer();
  cookie = await t.signIn();
});
afterAll(() => t.stop());

async function create(body: unknown = { name: "ci", scopes: ["render:read"] }) {
  return t.call("/v1/api-keys", { cookie, body });
}

describe("POST /v1/api-keys", () => {
  test("answers 201 ApiKeyCreated with the secret once; only its sha256 is stored", async () => {
    const res = await create({ name: "deploy", scopes: ["render:read", "audit:read"], expiresInDays: 30 });
    expect(res.status).toBe(201);
    const k = res.body;
    expect(k.id).toMatch(/^key_/);
    expect(k.name).toBe("deploy");
    expect(k.prefix).toBe("rd");
    expect(k.secret).toMatch(/^rd_[0-9A-Za-z]{43}$/);
    expect(k.start).toBe(k.secret.slice(0, 8));
    expect(k.scopes).toEqual(["render:read", "audit:read"]);
    expect(k.enabled).toBe(true);
    expect(k.createdAt).toBe("2026-03-10T10:00:00.000Z");
    expect(k.expiresAt).toBe("2026-04-09T10:00:00.000Z");
    expect(k.lastUsedAt).toBeUndefined();
    const stored = (await t.server.store.get<{ secret_hash: string }>("SELECT secret_hash FROM api_keys WHERE id = $id", { id: k.id }))!;
    expect(stored.secret_hash).toBe(new Bun.CryptoHasher("sha256").update(k.secret).digest("hex"));
    const dump = JSON.stringify(await t.server.store.all("SELECT * FROM api_keys"));
    expect(dump).not.toContain(k.secret);
  });

  test("all fourteen scopes are accepted; a fifteenth entry or a duplicate is refused", async () => {
    expect((await create({ name: "all", scopes: [...SCOPES] })).status).toBe(201);
    const dup = await create({ name: "dup", scopes: ["render:read", "render:read"] });
    expect(dup.status).toBe(400);
    const many = await create({ name: "many", scopes: [...SCOPES, "render:read"] });
    expect(many.status).toBe(400);
  });

  test("name and expiry bounds", async () => {
    for (const body of [
      { name: "", scopes: [] },
      { name: "x".repeat(65), scopes: [] },
      { name: "ok", scopes: [], expiresInDays: 0 },
      { name: "ok", scopes: [], expiresInDays: 366 },
      { name: "ok", scopes: [], expiresInDays: 1.5 },
      { name: 5, scopes: [] },
    ]) {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body.error.details.length).toBeGreaterThan(0);
    }
    expect((await create({ name: "x".repeat(64), scopes: [], expiresInDays: 365 })).status).toBe(201);
  });

  test("an API key is refused even with admin:manage (spec 5.3.2)", async () => {
    const key = await t.makeKey(t.defaultWorkspaceId, ["admin:manage"]);
    const res = await t.call("/v1/api-keys", { key, body: { name: "x", scopes: [] } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
  });

  test("no credential: 401", async () => {
    const res = await t.call("/v1/api-keys", { body: { name: "x", scopes: [] } });
    expect(res.status).toBe(401);
  });
});

describe("GET /v1/api-keys", () => {
  test("works with an API key holding admin:manage and never shows secrets", async () => {
    const key = await t.makeKey(t.defaultWorkspaceId, ["admin:manage"]);
    const res = await t.call("/v1/api-keys", { key });
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeGreaterThan(0);
    for (const item of res.body.items) expect(item.secret).toBeUndefined();
  });

  test("an API key without admin:manage: 403", async () => {
    const key = await t.makeKey(t.defaultWorkspaceId, ["render:read"]);
    const res = await t.call("/v1/api-keys", { key });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain("admin:manage");
  });

  test("pages with limit and cursor, newest first, without overlap", async () => {
    const ws = await t.makeWorkspace("Paging");
    for (let i = 0; i < 7; i++) {
      t.clock.advance(1000);
      const res = await t.call("/v1/api-keys", { cookie: ws.cookie, body: { name: `k${i}`, scopes: [] } });
      expect(res.status).toBe(201);
    }
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await t.call(`/v1/api-keys?limit=3${cursor ? `&cursor=${cursor}` : ""}`, { cookie: ws.cookie });
      expect(res.status).toBe(200);
      names.push(...res.body.items.map((k: any) => k.name));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(names).toEqual(["k6", "k5", "k4", "k3", "k2", "k1", "k0"]);
  });

  test("default page size is 50", async () => {
    const ws = await t.makeWorkspace("Fifty");
    for (let i = 0; i < 55; i++) await t.makeKey(ws.id, []);
    const res = await t.call("/v1/api-keys", { cookie: ws.cookie });
    expect(res.body.items.length).toBe(50);
    expect(res.body.nextCursor).toBeTruthy();
    const max = await t.call("/v1/api-keys?limit=100", { cookie: ws.cookie });
    expect(max.body.items.length).toBe(55);
    expect(max.body.nextCursor).toBeUndefined();
  });
});

describe("using a key", () => {
  test("lastUsedAt is set on use and updated at most once a minute", async () => {
    const created = (await create({ name: "used", scopes: ["render:read"] })).body;
    const use = () => t.call("/v1/render-limits", { key: created.secret });
    const read = async () => (await t.server.store.get<{ last_used_at: string | null }>("SELECT last_used_at FROM api_keys WHERE id = $id", { id: created.id }))!.last_used_at;
    expect(await read()).toBeNull();
    expect((await use()).status).toBe(200);
    const first = await read();
    expect(first).toBe(t.clock.now().toISOString());
    t.clock.advance(30_000);
    await use();
    expect(await read()).toBe(first);
    t.clock.advance(31_000);
    await use();
    expect(await read()).toBe(t.clock.now().toISOString());
  });

  test("an unknown or malformed key: 401", async () => {
    expect((await t.call("/v1/render-limits", { key: "rd_" + "A".repeat(43) })).status).toBe(401);
    expect((await t.call("/v1/render-limits", { key: "hello" })).status).toBe(401);
  });

  test("an expired key: 401", async () => {
    const created = (await create({ name: "short", scopes: ["render:read"], expiresInDays: 1 })).body;
    expect((await t.call("/v1/render-limits", { key: created.secret })).status).toBe(200);
    t.clock.advance(24 * 3600 * 1000);
    const res = await t.call("/v1/render-limits", { key: created.secret });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toContain("expired");
  });
});

describe("rotate, revoke, delete", () => {
  test("rotate keeps the key, replaces the secret; the old secret stops working", async () => {
    const created = (await create({ name: "rot", scopes: ["render:read"] })).body;
    const rotated = await t.call(`/v1/api-keys/${created.id}/rotate`, { cookie, method: "POST" });
    expect(rotated.status).toBe(200);
    expect(rotated.body.id).toBe(created.id);
    expect(rotated.body.secret).not.toBe(created.secret);
    expect(rotated.body.start).toBe(rotated.body.secret.slice(0, 8));
    expect((await t.call("/v1/render-limits", { key: created.secret })).status).toBe(401);
    expect((await t.call("/v1/render-limits", { key: rotated.body.secret })).status).toBe(200);
  });

  test("revoke disables the key; it answers {id, revoked: true}", async () => {
    const created = (await create({ name: "rev", scopes: ["render:read"] })).body;
    const res = await t.call(`/v1/api-keys/${created.id}/revoke`, { cookie, method: "POST" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.id, revoked: true });
    const used = await t.call("/v1/render-limits", { key: created.secret });
    expect(used.status).toBe(401);
    expect(used.body.error.message).toContain("revoked");
    const list = await t.call("/v1/api-keys?limit=100", { cookie });
    expect(list.body.items.find((k: any) => k.id === created.id).enabled).toBe(false);
  });

  test("delete removes the key; it answers {id, deleted: true}; then 404", async () => {
    const created = (await create({ name: "del", scopes: ["render:read"] })).body;
    const res = await t.call(`/v1/api-keys/${created.id}`, { cookie, method: "DELETE" });
    expect(res.body).toEqual({ id: created.id, deleted: true });
    expect((await t.call("/v1/render-limits", { key: created.secret })).status).toBe(401);
    expect((await t.call(`/v1/api-keys/${created.id}`, { cookie, method: "DELETE" })).status).toBe(404);
  });

  test("rotate, revoke and delete refuse API keys even with admin:manage", async () => {
    const created = (await create({ name: "target", scopes: [] })).body;
    const key = await t.makeKey(t.defaultWorkspaceId, ["admin:manage"]);
    for (const [method, path] of [
      ["POST", `/v1/api-keys/${created.id}/rotate`],
      ["POST", `/v1/api-keys/${created.id}/revoke`],
      ["DELETE", `/v1/api-keys/${created.id}`],
    ] as const) {
      const res = await t.call(path, { key, method });
      expect(res.status).toBe(403);
    }
  });

  test("another workspace's key is 404 for every operation", async () => {
    const other = await t.makeWorkspace("Other");
    const theirs = (await t.call("/v1/api-keys", { cookie: other.cookie, body: { name: "theirs", scopes: [] } })).body;
    for (const [method, path] of [
      ["POST", `/v1/api-keys/${theirs.id}/rotate`],
      ["POST", `/v1/api-keys/${theirs.id}/revoke`],
      ["DELETE", `/v1/api-keys/${theirs.id}`],
    ] as const) {
      const res = await t.call(path, { cookie, method });
      expect(res.status).toBe(404);
    }
    const list = await t.call("/v1/api-keys?limit=100", { cookie });
    expect(list.body.items.some((k: any) => k.id === theirs.id)).toBe(false);
  });

  test("each change writes an audit event with actor, resource and request id", async () => {
    const created = (await create({ name: "audited", scopes: ["render:read"] })).body;
    await t.call(`/v1/api-keys/${created.id}/rotate`, { cookie, method: "POST", headers: { "x-request-id": "rotate-req-1" } });
    await t.call(`/v1/api-keys/${created.id}/revoke`, { cookie, method: "POST" });
    await t.call(`/v1/api-keys/${created.id}`, { cookie, method: "DELETE" });
    const key = await t.makeKey(t.defaultWorkspaceId, ["audit:read"]);
    const res = await t.call(`/v1/audit-events?resourceId=${created.id}`, { key });
    expect(res.body.items.map((e: any) => e.action)).toEqual(["api_key.deleted", "api_key.revoked", "api_key.rotated", "api_key.created"]);
    for (const e of res.body.items) {
      expect(e.actorType).toBe("user");
      expect(e.resourceType).toBe("api_key");
      expect(e.resourceName).toBe("audited");
      expect(e.resourceDeleted).toBe(true);
    }
    expect(res.body.items[2].requestId).toBe("rotate-req-1");
    expect(res.body.items[3].metadata.scopes).toBe("render:read");
  });
});

describe("a suspended workspace", () => {
  test("refuses its API keys with 403 while members still sign in and read", async () => {
    const ws = await t.makeWorkspace("Suspended Co");
    const key = await t.makeKey(ws.id, ["render:read"]);
    expect((await t.call("/v1/render-limits", { key })).status).toBe(200);
    const admin = await t.signIn();
    const put = await t.call(`/v1/companies/${ws.id}/allowances`, { cookie: admin, method: "PUT", body: { maxActiveRenders: 10, rendersPerMinute: 60, suspended: true } });
    expect(put.status).toBe(200);
    const refused = await t.call("/v1/render-limits", { key });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("suspended");
    const member = await t.signIn(ws.email, ws.password);
    const read = await t.call("/v1/render-limits", { cookie: member });
    expect(read.status).toBe(200);
    expect(read.body.suspended).toBe(true);
    await t.call(`/v1/companies/${ws.id}/allowances`, { cookie: admin, method: "PUT", body: { maxActiveRenders: 10, rendersPerMinute: 60, suspended: false } });
    expect((await t.call("/v1/render-limits", { key })).status).toBe(200);
  });
});
