import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../harness";

let t: TestServer;
const dataDir = mkdtempSync(join(tmpdir(), "renderd-restart-"));
beforeAll(async () => {
  t = await startTestServer({}, dataDir);
});
afterAll(async () => {
  await t.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("a restart keeps every key, workspace, allowance and audit event", async () => {
  const ws = await t.makeWorkspace("Durable");
  const admin = await t.signIn();
  const created = (await t.call("/v1/api-keys", { cookie: ws.cookie, body: { name: "durable", scopes: ["render:read", "audit:read", "admin:manage"] } })).body;
  await t.call(`/v1/companies/${ws.id}/allowances`, { cookie: admin, method: "PUT", body: { maxActiveRenders: 7, rendersPerMinute: 8, documentsPerMonth: 9 } });
  const auditBefore = (await t.call("/v1/audit-events?limit=100", { key: created.secret })).body.items;
  const keysBefore = (await t.call("/v1/api-keys", { key: created.secret })).body.items;
  const workspacesBefore = (await t.call("/v1/platform/workspaces?limit=100", { cookie: admin })).body.items;

  await t.restart();

  expect((await t.call("/v1/render-limits", { key: created.secret })).body).toMatchObject({ maxActiveRenders: 7, rendersPerMinute: 8, documentsPerMonth: 9 });
  expect((await t.call("/v1/audit-events?limit=100", { key: created.secret })).body.items).toEqual(auditBefore);
  expect((await t.call("/v1/api-keys", { key: created.secret })).body.items).toEqual(keysBefore);
  const adminAgain = await t.signIn();
  expect((await t.call("/v1/platform/workspaces?limit=100", { cookie: adminAgain })).body.items).toEqual(workspacesBefore);
  // Sessions survive too: the cookie from before the restart still works.
  expect((await t.call("/v1/auth/me", { cookie: ws.cookie })).status).toBe(200);
  // First start ran once: still one default workspace and one administrator.
  expect((await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM workspaces WHERE slug = 'default'"))!.n).toBe(1);
});
