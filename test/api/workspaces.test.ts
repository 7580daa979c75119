import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";

let t: TestServer;
let admin: string;
beforeAll(async () => {
  t = await startTestServer();
  admin = await t.signIn();
});
afterAll(() => t.stop());

const put = (id: string, body: unknown, cookie = admin) => t.call(`/v1/companies/${id}/allowances`, { cookie, method: "PUT", body });

describe("GET /v1/render-limits", () => {
  test("answers all eleven fields with the defaults and zero counters", async () => {
    const key = await t.makeKey(t.defaultWorkspaceId, ["render:read"]);
    const res = await t.call("/v1/render-limits", { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      maxActiveRenders: 10,
      rendersPerMinute: 60,
      documentsPerMonth: null,
      maxStorageBytes: null,
      testRendersPerDay: null,
      templateConversionsPerMonth: null,
      suspended: false,
      documentsThisMonth: 0,
      storageBytes: 0,
      testRendersToday: 0,
      templateConversionsThisMonth: 0,
    });
  });

  test("needs render:read", async () => {
    const key = await t.makeKey(t.defaultWorkspaceId, ["audit:read"]);
    const res = await t.call("/v1/render-limits", { key });
    expect(res.status).toBe(403);
  });
});

describe("PUT /v1/companies/{id}/allowances", () => {
  test("replaces the allowances; the next request sees them", async () => {
    const ws = await t.makeWorkspace("Acme");
    const body = { maxActiveRenders: 3, rendersPerMinute: 20, documentsPerMonth: 1000, maxStorageBytes: 5_000_000, testRendersPerDay: 5, templateConversionsPerMonth: 2, suspended: false };
    const res = await put(ws.id, body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(body);
    const key = await t.makeKey(ws.id, ["render:read"]);
    const limits = await t.call("/v1/render-limits", { key });
    expect(limits.body).toMatchObject(body);
  });

  test("omitted optional fields are replaced by null (unlimited) and suspended by false", async () => {
    const ws = await t.makeWorkspace("Replace");
    await put(ws.id, { maxActiveRenders: 3, rendersPerMinute: 20, documentsPerMonth: 10, testRendersPerDay: 4 });
    const res = await put(ws.id, { maxActiveRenders: 4, rendersPerMinute: 21 });
    expect(res.body).toEqual({ maxActiveRenders: 4, rendersPerMinute: 21, documentsPerMonth: null, maxStorageBytes: null, testRendersPerDay: null, templateConversionsPerMonth: null, suspended: false });
  });

  test("accepts a workspace's slug too", async () => {
    const res = await put("default", { maxActiveRenders: 10, rendersPerMinute: 60 });
    expect(res.status).toBe(200);
  });

  test.each([
    [{ rendersPerMinute: 1 }, "/maxActiveRenders"],
    [{ maxActiveRenders: 1 }, "/rendersPerMinute"],
    [{ maxActiveRenders: 0, rendersPerMinute: 1 }, "/maxActiveRenders"],
    [{ maxActiveRenders: 100001, rendersPerMinute: 1 }, "/maxActiveRenders"],
    [{ maxActiveRenders: 1, rendersPerMinute: 10000001 }, "/rendersPerMinute"],
    [{ maxActiveRenders: 1, rendersPerMinute: 1, documentsPerMonth: -1 }, "/documentsPerMonth"],
    [{ maxActiveRenders: 1, rendersPerMinute: 1, documentsPerMonth: 1000000001 }, "/documentsPerMonth"],
    [{ maxActiveRenders: 1, rendersPerMinute: 1, maxStorageBytes: 9007199254740992 }, "/maxStorageBytes"],
    [{ maxActiveRenders: 1, rendersPerMinute: 1, testRendersPerDay: 10000001 }, "/testRendersPerDay"],
    [{ maxActiveRenders: 1, rendersPerMinute: 1, templateConversionsPerMonth: 1000001 }, "/templateConversionsPerMonth"],
    [{ maxActiveRenders: 1.5, rendersPerMinute: 1 }, "/maxActiveRenders"],
    [{ maxActiveRenders: 1, rendersPerMinute: 1, suspended: "yes" }, "/suspended"],
    [{ maxActiveRenders: 1, rendersPerMinute: 1, plan: "gold" }, "/plan"],
  ])("refuses %j with 400 at %s", async (body, path) => {
    const res = await put(t.defaultWorkspaceId, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("BAD_REQUEST");
    expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
  });

  test("bounds are inclusive", async () => {
    const ws = await t.makeWorkspace("Bounds");
    const res = await put(ws.id, { maxActiveRenders: 100000, rendersPerMinute: 10000000, documentsPerMonth: 0, maxStorageBytes: 9007199254740991, testRendersPerDay: 10000000, templateConversionsPerMonth: 1000000 });
    expect(res.status).toBe(200);
  });

  test("only a platform administrator's console session may change allowances", async () => {
    const ws = await t.makeWorkspace("Owner Only");
    const owner = await put(ws.id, { maxActiveRenders: 1, rendersPerMinute: 1 }, ws.cookie);
    expect(owner.status).toBe(403);
    const key = await t.makeKey(t.defaultWorkspaceId, ["admin:manage"]);
    const byKey = await t.call(`/v1/companies/${ws.id}/allowances`, { key, method: "PUT", body: { maxActiveRenders: 1, rendersPerMinute: 1 } });
    expect(byKey.status).toBe(403);
    const anonymous = await t.call(`/v1/companies/${ws.id}/allowances`, { method: "PUT", body: { maxActiveRenders: 1, rendersPerMinute: 1 } });
    expect(anonymous.status).toBe(401);
  });

  test("an unknown workspace: 404", async () => {
    const res = await put("ws_doesnotexist", { maxActiveRenders: 1, rendersPerMinute: 1 });
    expect(res.status).toBe(404);
  });

  test("a change, a suspension and a restoration are audited in the workspace's history", async () => {
    const ws = await t.makeWorkspace("Audited");
    await put(ws.id, { maxActiveRenders: 5, rendersPerMinute: 6, suspended: true }, admin);
    await put(ws.id, { maxActiveRenders: 5, rendersPerMinute: 6, suspended: false }, admin);
    const res = await t.call("/v1/audit-events?resourceType=workspace", { cookie: ws.cookie });
    const actions = res.body.items.map((e: any) => e.action);
    expect(actions).toEqual(["workspace.restored", "workspace.allowances_updated", "workspace.suspended", "workspace.allowances_updated", "workspace.created"]);
    const change = res.body.items[3];
    expect(change.actorType).toBe("user");
    expect(change.metadata.maxActiveRenders).toBe(5);
    expect(change.metadata["previous.maxActiveRenders"]).toBe(10);
    expect(change.metadata.suspended).toBe(true);
  });
});

describe("platform workspaces", () => {
  test("list answers PlatformWorkspaces newest first; search matches name or slug", async () => {
    await t.makeWorkspace("Zebra Printing");
    t.clock.advance(1000);
    await t.makeWorkspace("Yak Labels");
    const res = await t.call("/v1/platform/workspaces", { cookie: admin });
    expect(res.status).toBe(200);
    const names = res.body.items.map((w: any) => w.name);
    expect(names.indexOf("Yak Labels")).toBeLessThan(names.indexOf("Zebra Printing"));
    for (const w of res.body.items) {
      expect(Object.keys(w).sort()).toEqual(
        ["createdAt", "documentsPerMonth", "id", "maxActiveRenders", "maxStorageBytes", "name", "rendersPerMinute", "slug", "suspended", "templateConversionsPerMonth", "testRendersPerDay"].sort(),
      );
    }
    const search = await t.call("/v1/platform/workspaces?search=zebra", { cookie: admin });
    expect(search.body.items.map((w: any) => w.name)).toEqual(["Zebra Printing"]);
    const none = await t.call("/v1/platform/workspaces?search=%25", { cookie: admin });
    expect(none.body.items).toEqual([]);
    const long = await t.call(`/v1/platform/workspaces?search=${"a".repeat(129)}`, { cookie: admin });
    expect(long.status).toBe(400);
  });

  test("pages with a cursor", async () => {
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const res = await t.call(`/v1/platform/workspaces?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { cookie: admin });
      for (const w of res.body.items) {
        expect(seen.has(w.id)).toBe(false);
        seen.add(w.id);
      }
      cursor = res.body.nextCursor;
    } while (cursor);
    const total = (await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM workspaces"))!.n;
    expect(seen.size).toBe(total);
  });

  test("one workspace by id; unknown is 404", async () => {
    const res = await t.call(`/v1/platform/workspaces/${t.defaultWorkspaceId}`, { cookie: admin });
    expect(res.status).toBe(200);
    expect(res.body.slug).toBe("default");
    expect((await t.call("/v1/platform/workspaces/ws_nope", { cookie: admin })).status).toBe(404);
  });

  test("non-administrators and API keys are refused", async () => {
    const ws = await t.makeWorkspace("Plain");
    expect((await t.call("/v1/platform/workspaces", { cookie: ws.cookie })).status).toBe(403);
    const key = await t.makeKey(t.defaultWorkspaceId, ["admin:manage"]);
    expect((await t.call("/v1/platform/workspaces", { key })).status).toBe(403);
    expect((await t.call(`/v1/platform/workspaces/${ws.id}`, { key })).status).toBe(403);
  });
});
