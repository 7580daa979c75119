/** usage: GET /v1/usage (spec 4.8) and GET /v1/platform/usage (4.3) over the real server; usage is seeded with
 * recordRenderEnd, the call rendering makes when a render reaches its final state. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { recordRenderEnd, type UsageEnd } from "../../src/ledger/usage-days";
import { startTestServer, type TestServer } from "../harness";

let t: TestServer;
let admin: string;
beforeAll(async () => {
  t = await startTestServer();
  admin = await t.signIn();
});
afterAll(() => t.stop());

async function record(...ends: UsageEnd[]): Promise<void> {
  await t.server.store.tx(async (tx) => {
    for (const end of ends) recordRenderEnd(tx, end);
  });
}

const zero = { rendersSucceeded: 0, rendersFailed: 0, rendersCancelled: 0, pages: 0, outputBytes: 0 };

describe("recordRenderEnd", () => {
  test("refuses a day that is not a calendar day", async () => {
    await expect(record({ workspaceId: t.defaultWorkspaceId, day: "2026-02-30", status: "failed" })).rejects.toThrow(/calendar day/);
  });
});

describe("GET /v1/usage", () => {
  let ws: string;
  let key: string;
  beforeAll(async () => {
    ws = (await t.makeWorkspace("Usage")).id;
    key = await t.makeKey(ws, ["usage:read"]);
    await record(
      { workspaceId: ws, day: "2026-02-28", status: "succeeded", pages: 9, bytes: 900 },
      { workspaceId: ws, day: "2026-03-01", status: "succeeded", pages: 2, bytes: 2000 },
      { workspaceId: ws, day: "2026-03-01", status: "succeeded", pages: 3, bytes: 3000 },
      // Pages and bytes of a render that did not succeed are not counted (spec 2.10).
      { workspaceId: ws, day: "2026-03-01", status: "failed", pages: 50, bytes: 50000 },
      { workspaceId: ws, day: "2026-03-10", status: "cancelled" },
      { workspaceId: ws, day: "2026-03-31", status: "succeeded", pages: 1, bytes: 100 },
      { workspaceId: ws, day: "2026-04-01", status: "succeeded", pages: 7, bytes: 700 },
    );
  });

  test("defaults to the current UTC month of the clock, days ascending with totals", async () => {
    const res = await t.call("/v1/usage", { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      from: "2026-03-01",
      to: "2026-03-31",
      totals: { rendersSucceeded: 3, rendersFailed: 1, rendersCancelled: 1, pages: 6, outputBytes: 5100 },
      days: [
        { day: "2026-03-01", rendersSucceeded: 2, rendersFailed: 1, rendersCancelled: 0, pages: 5, outputBytes: 5000 },
        { day: "2026-03-10", rendersSucceeded: 0, rendersFailed: 0, rendersCancelled: 1, pages: 0, outputBytes: 0 },
        { day: "2026-03-31", rendersSucceeded: 1, rendersFailed: 0, rendersCancelled: 0, pages: 1, outputBytes: 100 },
      ],
    });
  });

  test("the default follows the clock into the next month", async () => {
    t.clock.set("2026-04-30T23:59:59.999Z");
    try {
      const res = await t.call("/v1/usage", { key });
      expect(res.body).toMatchObject({ from: "2026-04-01", to: "2026-04-30", totals: { rendersSucceeded: 1, pages: 7 } });
    } finally {
      t.clock.set("2026-03-10T10:00:00.000Z");
    }
  });

  test("an explicit range includes both ends and leaves out the days without usage", async () => {
    const res = await t.call("/v1/usage?from=2026-02-28&to=2026-03-01", { key });
    expect(res.status).toBe(200);
    expect(res.body.days.map((d: any) => d.day)).toEqual(["2026-02-28", "2026-03-01"]);
    expect(res.body.totals).toEqual({ rendersSucceeded: 3, rendersFailed: 1, rendersCancelled: 0, pages: 14, outputBytes: 5900 });
  });

  test("a range without usage answers zero totals and no days", async () => {
    const res = await t.call("/v1/usage?from=2026-03-02&to=2026-03-09", { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ from: "2026-03-02", to: "2026-03-09", totals: zero, days: [] });
  });

  test("from alone runs to the end of the current month; to alone starts at its first day", async () => {
    const fromOnly = await t.call("/v1/usage?from=2026-02-01", { key });
    expect(fromOnly.body).toMatchObject({ from: "2026-02-01", to: "2026-03-31", totals: { rendersSucceeded: 4 } });
    const toOnly = await t.call("/v1/usage?to=2026-03-05", { key });
    expect(toOnly.body).toMatchObject({ from: "2026-03-01", to: "2026-03-05", totals: { rendersSucceeded: 2 } });
    const toBeforeMonth = await t.call("/v1/usage?to=2026-02-28", { key });
    expect(toBeforeMonth.status).toBe(400);
    expect(toBeforeMonth.body.error.details[0].path).toBe("/to");
  });

  test("366 days counting both ends are accepted; 367 are refused at /to", async () => {
    const leapYear = await t.call("/v1/usage?from=2024-01-01&to=2024-12-31", { key });
    expect(leapYear.status).toBe(200);
    const over = await t.call("/v1/usage?from=2024-01-01&to=2025-01-01", { key });
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe("BAD_REQUEST");
    expect(over.body.error.details).toEqual([{ path: "/to", message: expect.stringContaining("366 days") }]);
  });

  test("days that are not calendar days are refused at their parameter", async () => {
    for (const [query, path] of [
      ["from=2026-02-30&to=2026-03-01", "/from"],
      ["from=2026-02-01&to=2026-02-29", "/to"],
      ["from=2026-13-01", "/from"],
      ["to=2026-3-1", "/to"],
      ["from=yesterday", "/from"],
    ]) {
      const res = await t.call(`/v1/usage?${query}`, { key });
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe("BAD_REQUEST");
      expect(res.body.error.details[0].path, query).toBe(path);
    }
    expect((await t.call("/v1/usage?from=2024-02-29&to=2024-02-29", { key })).status).toBe(200);
  });

  test("from after to is refused", async () => {
    const res = await t.call("/v1/usage?from=2026-03-02&to=2026-03-01", { key });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: "/to", message: expect.stringContaining("2026-03-02") }]);
  });

  test("unknown query parameters are refused", async () => {
    const res = await t.call("/v1/usage?from=2026-03-01&workspace=other", { key });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ path: "/workspace", message: "is not an allowed field" });
  });

  test("needs usage:read: 401 without a credential, 403 with a key lacking the scope", async () => {
    expect((await t.call("/v1/usage")).status).toBe(401);
    const res = await t.call("/v1/usage", { key: await t.makeKey(ws, ["render:read"]) });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
  });

  test("a member's console session holds usage:read", async () => {
    const member = await t.makeWorkspace("Usage member", "member");
    await record({ workspaceId: member.id, day: "2026-03-03", status: "failed" });
    const res = await t.call("/v1/usage", { cookie: member.cookie });
    expect(res.status).toBe(200);
    expect(res.body.totals).toEqual({ ...zero, rendersFailed: 1 });
  });

  test("another workspace's usage is not visible", async () => {
    const other = await t.makeWorkspace("Usage other");
    await record({ workspaceId: other.id, day: "2026-03-01", status: "succeeded", pages: 1000, bytes: 1000 });
    const mine = await t.call("/v1/usage?from=2026-03-01&to=2026-03-01", { key });
    expect(mine.body.totals).toEqual({ rendersSucceeded: 2, rendersFailed: 1, rendersCancelled: 0, pages: 5, outputBytes: 5000 });
    const theirs = await t.call("/v1/usage?from=2026-03-01&to=2026-03-01", { key: await t.makeKey(other.id, ["usage:read"]) });
    expect(theirs.body.totals).toEqual({ ...zero, rendersSucceeded: 1, pages: 1000, outputBytes: 1000 });
  });
});

describe("GET /v1/platform/usage", () => {
  // A month no other test records usage in, so the page holds exactly these workspaces.
  const range = "from=2025-06-01&to=2025-06-30";
  const ws: { id: string; slug: string }[] = [];
  beforeAll(async () => {
    for (const name of ["Plat A", "Plat B", "Plat C"]) {
      const id = (await t.makeWorkspace(name)).id;
      ws.push({ id, slug: (await t.server.store.get<{ slug: string }>("SELECT slug FROM workspaces WHERE id = $id", { id }))!.slug });
    }
    const quiet = await t.makeWorkspace("Plat quiet");
    await record(
      { workspaceId: ws[0].id, day: "2025-06-01", status: "succeeded", pages: 1, bytes: 10 },
      { workspaceId: ws[0].id, day: "2025-06-30", status: "succeeded", pages: 2, bytes: 20 },
      { workspaceId: ws[1].id, day: "2025-06-15", status: "failed" },
      { workspaceId: ws[2].id, day: "2025-06-15", status: "cancelled" },
      // Outside the range: this workspace has no usage in June.
      { workspaceId: quiet.id, day: "2025-07-01", status: "succeeded", pages: 1, bytes: 1 },
    );
  });

  test("pages the workspaces with usage in the range, newest first, with counters summed over the range", async () => {
    const first = await t.call(`/v1/platform/usage?${range}&limit=2`, { cookie: admin });
    expect(first.status).toBe(200);
    expect(first.body.from).toBe("2025-06-01");
    expect(first.body.to).toBe("2025-06-30");
    expect(first.body.items).toEqual([
      { workspaceId: ws[2].id, name: "Plat C", slug: ws[2].slug, ...zero, rendersCancelled: 1 },
      { workspaceId: ws[1].id, name: "Plat B", slug: ws[1].slug, ...zero, rendersFailed: 1 },
    ]);
    expect(typeof first.body.nextCursor).toBe("string");

    const second = await t.call(`/v1/platform/usage?${range}&limit=2&cursor=${first.body.nextCursor}`, { cookie: admin });
    expect(second.status).toBe(200);
    expect(second.body.items).toEqual([{ workspaceId: ws[0].id, name: "Plat A", slug: ws[0].slug, ...zero, rendersSucceeded: 2, pages: 3, outputBytes: 30 }]);
    expect(second.body.nextCursor).toBeUndefined();
  });

  test("defaults to the current UTC month of the clock", async () => {
    const res = await t.call("/v1/platform/usage", { cookie: admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ from: "2026-03-01", to: "2026-03-31" });
    expect(res.body.items.map((i: any) => i.workspaceId)).not.toContain(ws[0].id);
  });

  test("the range rules and the paging rules are those of the API", async () => {
    const bad = await t.call("/v1/platform/usage?from=2025-06-01&to=2026-06-02", { cookie: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("/to");
    const limit = await t.call(`/v1/platform/usage?${range}&limit=101`, { cookie: admin });
    expect(limit.status).toBe(400);
    expect(limit.body.error.details[0].path).toBe("/limit");
    const cursor = await t.call(`/v1/platform/usage?${range}&cursor=cAAAA`, { cookie: admin });
    expect(cursor.status).toBe(400);
    expect(cursor.body.error.details[0].path).toBe("/cursor");
    const unknown = await t.call(`/v1/platform/usage?${range}&search=x`, { cookie: admin });
    expect(unknown.status).toBe(400);
  });

  test("needs a platform administrator's console session", async () => {
    const owner = await t.makeWorkspace("Plat owner");
    expect((await t.call(`/v1/platform/usage?${range}`, { cookie: owner.cookie })).status).toBe(403);
    expect((await t.call(`/v1/platform/usage?${range}`, { key: await t.makeKey(owner.id, ["usage:read", "admin:manage"]) })).status).toBe(403);
    expect((await t.call(`/v1/platform/usage?${range}`)).status).toBe(401);
  });
});

describe("GET /v1/platform/workspaces/{id}/usage", () => {
  let ws: { id: string; cookie: string };
  let slug: string;
  beforeAll(async () => {
    ws = await t.makeWorkspace("One workspace");
    slug = (await t.server.store.get<{ slug: string }>("SELECT slug FROM workspaces WHERE id = $id", { id: ws.id }))!.slug;
    await record(
      { workspaceId: ws.id, day: "2025-09-02", status: "succeeded", pages: 4, bytes: 40 },
      { workspaceId: ws.id, day: "2025-09-03", status: "failed" },
      { workspaceId: t.defaultWorkspaceId, day: "2025-09-02", status: "succeeded", pages: 100, bytes: 1000 },
    );
  });

  test("answers that workspace's report, as GET /v1/usage does for its own members; the id may be the slug", async () => {
    for (const id of [ws.id, slug]) {
      const res = await t.call(`/v1/platform/workspaces/${id}/usage?from=2025-09-01&to=2025-09-30`, { cookie: admin });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        from: "2025-09-01",
        to: "2025-09-30",
        totals: { ...zero, rendersSucceeded: 1, rendersFailed: 1, pages: 4, outputBytes: 40 },
        days: [
          { day: "2025-09-02", ...zero, rendersSucceeded: 1, pages: 4, outputBytes: 40 },
          { day: "2025-09-03", ...zero, rendersFailed: 1 },
        ],
      });
    }
    const own = await t.call("/v1/usage?from=2025-09-01&to=2025-09-30", { key: await t.makeKey(ws.id, ["usage:read"]) });
    const viaPlatform = await t.call(`/v1/platform/workspaces/${ws.id}/usage?from=2025-09-01&to=2025-09-30`, { cookie: admin });
    expect(viaPlatform.body).toEqual(own.body);
  });

  test("an unknown workspace is 404; the range rules are those of /v1/usage", async () => {
    expect((await t.call("/v1/platform/workspaces/ws_nothing/usage", { cookie: admin })).status).toBe(404);
    const bad = await t.call(`/v1/platform/workspaces/${ws.id}/usage?from=2025-09-31`, { cookie: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("/from");
  });

  test("needs a platform administrator's console session", async () => {
    expect((await t.call(`/v1/platform/workspaces/${ws.id}/usage`, { cookie: ws.cookie })).status).toBe(403);
    expect((await t.call(`/v1/platform/workspaces/${ws.id}/usage`, { key: await t.makeKey(ws.id, ["usage:read", "admin:manage"]) })).status).toBe(403);
    expect((await t.call(`/v1/platform/workspaces/${ws.id}/usage`)).status).toBe(401);
  });
});
