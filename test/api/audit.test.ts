import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";

let t: TestServer;
let ws: { id: string; cookie: string };
let key: string;
beforeAll(async () => {
  t = await startTestServer();
  ws = await t.makeWorkspace("Audit Co");
  key = await t.makeKey(ws.id, ["audit:read"]);
  // A known history. Setup (system): workspace.created, user.created, api_key.created (the reader key);
  // the owner (user): user.signed_in, three keys made a minute apart, one revoked.
  for (const name of ["alpha", "beta", "gamma"]) {
    t.clock.advance(60_000);
    await t.call("/v1/api-keys", { cookie: ws.cookie, body: { name, scopes: [] } });
  }
  const list = await t.call("/v1/api-keys?limit=100", { cookie: ws.cookie });
  const beta = list.body.items.find((k: any) => k.name === "beta");
  t.clock.advance(60_000);
  await t.call(`/v1/api-keys/${beta.id}/revoke`, { cookie: ws.cookie, method: "POST" });
});
afterAll(() => t.stop());

const list = (query = "") => t.call(`/v1/audit-events${query}`, { key });

describe("GET /v1/audit-events", () => {
  test("newest first, every required field present", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    const times = res.body.items.map((e: any) => e.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    for (const e of res.body.items) {
      for (const field of ["id", "actorType", "actorId", "action", "resourceType", "resourceId", "requestId", "metadata", "createdAt"]) expect(e[field]).toBeDefined();
    }
    expect(res.body.items[0].action).toBe("api_key.revoked");
  });

  test.each([
    ["?action=api_key.created", 4],
    ["?action=api_key.revoked", 1],
    ["?actorType=user", 5],
    ["?actorType=system", 3],
    ["?resourceType=workspace", 1],
    ["?actorType=user&action=api_key.created", 3],
  ])("filter %s gives %d events", async (query, count) => {
    const res = await list(query);
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBe(count);
  });

  test("actorId and resourceId filters", async () => {
    const all = await list("?action=api_key.created&actorType=user");
    const one = all.body.items[0];
    const byResource = await list(`?resourceId=${one.resourceId}`);
    expect(byResource.body.items.map((e: any) => e.id)).toEqual([one.id]);
    const byActor = await list(`?actorId=${one.actorId}`);
    expect(byActor.body.items.every((e: any) => e.actorId === one.actorId)).toBe(true);
    expect(byActor.body.items.length).toBe(5);
  });

  test("from and to bound createdAt inclusively, offsets included", async () => {
    const created = (await list("?action=api_key.created&actorType=user")).body.items.map((e: any) => e.createdAt).sort();
    const res = await list(`?action=api_key.created&actorType=user&from=${created[1]}&to=${created[2]}`);
    expect(res.body.items.length).toBe(2);
    // The same instant written with a +02:00 offset.
    const shifted = new Date(Date.parse(created[1]) + 2 * 3600_000).toISOString().replace("Z", "+02:00");
    const offset = await list(`?action=api_key.created&actorType=user&from=${encodeURIComponent(shifted)}`);
    expect(offset.body.items.length).toBe(2);
    const bad = await list("?from=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("/from");
  });

  test("a bad actorType is refused", async () => {
    const res = await list("?actorType=robot");
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe("/actorType");
  });

  test("cursor paging visits every event once", async () => {
    const all = (await list("?limit=100")).body.items.map((e: any) => e.id);
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      paged.push(...res.body.items.map((e: any) => e.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(paged).toEqual(all);
  });

  test("GET one event; another workspace's event is 404", async () => {
    const first = (await list()).body.items[0];
    const one = await t.call(`/v1/audit-events/${first.id}`, { key });
    expect(one.body).toEqual(first);
    const otherKey = await t.makeKey(t.defaultWorkspaceId, ["audit:read"]);
    const res = await t.call(`/v1/audit-events/${first.id}`, { key: otherKey });
    expect(res.status).toBe(404);
    const otherList = await t.call(`/v1/audit-events?resourceId=${first.resourceId}`, { key: otherKey });
    expect(otherList.body.items).toEqual([]);
  });

  test("needs audit:read", async () => {
    const k = await t.makeKey(ws.id, ["render:read"]);
    expect((await t.call("/v1/audit-events", { key: k })).status).toBe(403);
  });
});
