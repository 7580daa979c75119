import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";
import { allowanceRefusal, type Use } from "../../src/modules/renders/allowances";
import type { CompanyAllowances } from "../../src/modules/workspaces/model";
import { inList } from "../../src/store/sql-list";
import { until } from "../wait";

let t: TestServer;
let admin: string;

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1" });
  admin = await t.signIn();
});
afterAll(() => t.stop());

const HTML = { html: "<p>allowance</p>" };
const TEST_HTML = { html: "<p>test allowance</p>", test: true };

async function workspace(name: string, allowances: Partial<CompanyAllowances> = {}) {
  const ws = await t.makeWorkspace(name);
  const key = await t.makeKey(ws.id, ["render:create", "render:read", "render:cancel"]);
  await setAllowances(ws.id, allowances);
  return { ...ws, key };
}

async function setAllowances(id: string, allowances: Partial<CompanyAllowances>) {
  const res = await t.call(`/v1/companies/${id}/allowances`, {
    method: "PUT",
    cookie: admin,
    body: { maxActiveRenders: 10, rendersPerMinute: 60, ...allowances },
  });
  expect(res.status).toBe(200);
}

const limits = async (key: string) => (await t.call("/v1/render-limits", { key: key })).body;
const renderCount = async (ws: string) => (await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM renders WHERE workspace_id = $ws", { ws }))!.n;

/** paused runs `fn` with the worker stopped, so renders stay queued (outstanding) while allowances are checked. */
async function paused<T>(fn: () => Promise<T>): Promise<T> {
  await t.server.worker.stop();
  try {
    return await fn();
  } finally {
    await t.server.worker.start();
  }
}

describe("allowanceRefusal (the pure decision)", () => {
  const base: CompanyAllowances = { maxActiveRenders: 5, rendersPerMinute: 20, documentsPerMonth: null, maxStorageBytes: null, testRendersPerDay: null, templateConversionsPerMonth: null, suspended: false };
  const idle: Use = { activeReal: 0, activeTest: 0, realLastMinute: 0, testLastMinute: 0, realWindowFreesIn: 1, testWindowFreesIn: 1, documentsThisMonth: 0, testRendersToday: 0 };
  test.each([
    ["within every allowance", {}, {}, { real: 5, test: 5 }, null],
    ["suspended", { suspended: true }, {}, { real: 1, test: 0 }, "FORBIDDEN"],
    ["one more than maxActiveRenders", {}, { activeReal: 5 }, { real: 1, test: 0 }, "RATE_LIMITED"],
    ["a batch that would pass maxActiveRenders", {}, { activeReal: 3 }, { real: 3, test: 0 }, "RATE_LIMITED"],
    ["rendersPerMinute spent", {}, { realLastMinute: 20 }, { real: 1, test: 0 }, "RATE_LIMITED"],
    ["documentsPerMonth spent", { documentsPerMonth: 3 }, { documentsThisMonth: 3 }, { real: 1, test: 0 }, "QUOTA_EXCEEDED"],
    ["an XLSX over documentsPerMonth", { documentsPerMonth: 0 }, {}, { real: 0, test: 0, xlsx: 1 }, "QUOTA_EXCEEDED"],
    ["documentsPerMonth 0 leaves test renders alone", { documentsPerMonth: 0 }, {}, { real: 0, test: 1 }, null],
    ["test renders ignore the real allowances", {}, { activeReal: 5, realLastMinute: 20 }, { real: 0, test: 1 }, null],
    ["the 11th outstanding test render", { maxActiveRenders: 100 }, { activeTest: 10 }, { real: 0, test: 1 }, "RATE_LIMITED"],
    ["the test allowance follows a lower maxActiveRenders", {}, { activeTest: 5 }, { real: 0, test: 1 }, "RATE_LIMITED"],
    ["the 11th test render of a minute", { rendersPerMinute: 1000 }, { testLastMinute: 10 }, { real: 0, test: 1 }, "RATE_LIMITED"],
    ["testRendersPerDay spent", { testRendersPerDay: 2 }, { testRendersToday: 2 }, { real: 0, test: 1 }, "QUOTA_EXCEEDED"],
  ] as const)("%s", (_, allowances, use, demand, code) => {
    const refusal = allowanceRefusal({ ...base, ...allowances }, { ...idle, ...use }, demand);
    expect(refusal?.code ?? null).toBe(code);
    if (refusal) expect(refusal.retryable).toBe(code === "RATE_LIMITED");
  });
});

describe("allowances at creation (spec 2.2, 8.1)", () => {
  test("maxActiveRenders: 429 RATE_LIMITED, retryable, with Retry-After; test renders are not counted against it", async () => {
    const ws = await workspace("Active", { maxActiveRenders: 2 });
    await paused(async () => {
      for (const _ of [1, 2]) expect((await t.call("/v1/renders", { key: ws.key, body: HTML })).status).toBe(202);
      const third = await t.call("/v1/renders", { key: ws.key, body: HTML });
      expect(third.status).toBe(429);
      expect(third.body.error).toMatchObject({ code: "RATE_LIMITED", retryable: true });
      expect(Number(third.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect((await t.call("/v1/renders", { key: ws.key, body: TEST_HTML })).status).toBe(202);
      expect(await renderCount(ws.id)).toBe(3);
    });
  });

  test("rendersPerMinute: the next minute lets renders in again", async () => {
    const ws = await workspace("Per minute", { rendersPerMinute: 2 });
    for (const _ of [1, 2]) expect((await t.call("/v1/renders", { key: ws.key, body: HTML })).status).toBe(202);
    const refused = await t.call("/v1/renders", { key: ws.key, body: HTML });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("RATE_LIMITED");
    expect(Number(refused.headers.get("retry-after"))).toBe(60);
    t.clock.advance(61_000);
    expect((await t.call("/v1/renders", { key: ws.key, body: HTML })).status).toBe(202);
  });

  test("a render refused with a page free stops the print begun for it while its acceptance was written, and keeps no page: the next render prints", async () => {
    const ws = await workspace("Printed ahead", { rendersPerMinute: 1 });
    const other = await workspace("Next in line");
    // The earlier tests' renders printed: the one page is free and the queue empty, as at concurrency 1.
    await until(async () => (await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM renders WHERE status IN ('queued', 'processing')"))!.n === 0, 30_000);
    expect((await t.call("/v1/renders?wait=30", { key: ws.key, body: HTML })).status).toBe(200);
    const failed = t.server.pool.stats().failed;
    const refused = await t.call("/v1/renders?wait=30", { key: ws.key, body: HTML });
    expect(refused.status).toBe(429);
    // On SQLite its print began before the allowances refused it (RenderWorker.printAhead), and was stopped.
    const stopped = t.server.store.engine === "sqlite" ? 1 : 0;
    await until(() => t.server.pool.stats().failed === failed + stopped);
    const next = await t.call("/v1/renders?wait=30", { key: other.key, body: HTML });
    expect(next.status).toBe(200);
    expect(next.body.status).toBe("succeeded");
  });

  test("documentsPerMonth: 429 QUOTA_EXCEEDED, not retryable; a cancelled render gives its document back; test renders do not count", async () => {
    const ws = await workspace("Documents", { documentsPerMonth: 2 });
    await paused(async () => {
      const first = await t.call("/v1/renders", { key: ws.key, body: HTML });
      await t.call("/v1/renders", { key: ws.key, body: HTML });
      expect((await limits(ws.key)).documentsThisMonth).toBe(2);
      const refused = await t.call("/v1/renders", { key: ws.key, body: HTML });
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ code: "QUOTA_EXCEEDED", retryable: false });
      expect((await t.call("/v1/renders", { key: ws.key, body: TEST_HTML })).status).toBe(202);
      await t.call(`/v1/renders/${first.body.id}/cancel`, { key: ws.key, method: "POST" });
      expect((await limits(ws.key)).documentsThisMonth).toBe(1);
      expect((await t.call("/v1/renders", { key: ws.key, body: HTML })).status).toBe(202);
    });
  });

  test("testRendersPerDay: QUOTA_EXCEEDED until the next UTC day; testRendersToday counts them", async () => {
    const ws = await workspace("Test per day", { testRendersPerDay: 2 });
    for (const _ of [1, 2]) expect((await t.call("/v1/renders", { key: ws.key, body: TEST_HTML })).status).toBe(202);
    expect((await limits(ws.key)).testRendersToday).toBe(2);
    const refused = await t.call("/v1/renders", { key: ws.key, body: TEST_HTML });
    expect(refused.body.error.code).toBe("QUOTA_EXCEEDED");
    t.clock.advance(24 * 3600_000);
    expect((await limits(ws.key)).testRendersToday).toBe(0);
    expect((await t.call("/v1/renders", { key: ws.key, body: TEST_HTML })).status).toBe(202);
  });

  test("the test allowance: 10 outstanding at most, whatever maxActiveRenders says above it", async () => {
    const ws = await workspace("Test outstanding", { maxActiveRenders: 1000, rendersPerMinute: 1000 });
    await paused(async () => {
      for (let i = 0; i < 10; i++) expect((await t.call("/v1/renders", { key: ws.key, body: TEST_HTML })).status).toBe(202);
      const refused = await t.call("/v1/renders", { key: ws.key, body: TEST_HTML });
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toContain("10 at once");
    });
  });

  test("a suspended workspace renders nothing: its members' sessions are refused, its queued renders wait", async () => {
    const ws = await workspace("Suspended");
    await paused(async () => {
      const queued = await t.call("/v1/renders", { key: ws.key, body: HTML });
      await setAllowances(ws.id, { suspended: true });
      const refused = await t.call("/v1/renders", { cookie: ws.cookie, body: HTML });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("FORBIDDEN");
      await t.server.worker.start();
      await Bun.sleep(500);
      expect((await t.server.store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id: queued.body.id }))!.status).toBe("queued");
      await setAllowances(ws.id, { suspended: false });
      await until(async () => (await t.server.store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id: queued.body.id }))!.status === "succeeded");
      await t.server.worker.stop();
    });
  });

  test("lowering maxActiveRenders lets accepted renders finish and refuses new ones until below it", async () => {
    const ws = await workspace("Lowered", { maxActiveRenders: 5 });
    const ids = await paused(async () => {
      const made = [];
      for (const _ of [1, 2, 3]) made.push((await t.call("/v1/renders", { key: ws.key, body: HTML })).body.id);
      await setAllowances(ws.id, { maxActiveRenders: 1 });
      expect((await t.call("/v1/renders", { key: ws.key, body: HTML })).status).toBe(429);
      return made;
    });
    await until(async () => (await t.server.store.all<{ status: string }>(`SELECT status FROM renders WHERE ${inList("id", ids, "r").sql}`, inList("id", ids, "r").params)).every((r) => r.status === "succeeded"));
    expect((await t.call("/v1/renders", { key: ws.key, body: HTML })).status).toBe(202);
  });
});

describe("batches: all accepted or none", () => {
  test("a batch is queued together under one batchId", async () => {
    const ws = await workspace("Batch");
    const res = await t.call("/v1/renders/batch", { key: ws.key, body: { items: [HTML, { document: { type: "text", text: "two" } }, TEST_HTML] } });
    expect(res.status).toBe(202);
    expect(res.body.batchId).toMatch(/^bat_/);
    expect(res.body.items).toHaveLength(3);
    expect(res.body.items.every((r: { batchId: string }) => r.batchId === res.body.batchId)).toBe(true);
    expect(res.body.items.map((r: { test: boolean }) => r.test)).toEqual([false, false, true]);
  });

  test("one bad item refuses the batch with its pointer; nothing is queued or counted", async () => {
    const ws = await workspace("Bad batch", { documentsPerMonth: 100 });
    const res = await t.call("/v1/renders/batch", { key: ws.key, body: { items: [HTML, { html: "<p>x</p>", data: {} }] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: "/items/1/data", message: "is only allowed with templateId" }]);
    expect(await renderCount(ws.id)).toBe(0);
    expect((await limits(ws.key)).documentsThisMonth).toBe(0);
  });

  test("a batch over an allowance is refused whole", async () => {
    const ws = await workspace("Big batch", { maxActiveRenders: 2 });
    const res = await t.call("/v1/renders/batch", { key: ws.key, body: { items: [HTML, HTML, HTML] } });
    expect(res.status).toBe(429);
    expect(await renderCount(ws.id)).toBe(0);
  });

  test("1..500 items", async () => {
    const ws = await workspace("Batch bounds");
    expect((await t.call("/v1/renders/batch", { key: ws.key, body: { items: [] } })).status).toBe(400);
    const many = await t.call("/v1/renders/batch", { key: ws.key, body: { items: Array.from({ length: 501 }, () => HTML) } });
    expect(many.status).toBe(400);
    expect(many.body.error.details[0].path).toBe("/items");
  });
});
