/** export: GET /v1/export over the real server — the document checked against its own schema, who may export, suspension, paging. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { startTestServer, type TestServer } from "../harness";
import { PNG, put, registration } from "../fixtures/assets";
import { WorkspaceExport } from "../../src/modules/export/model";

const exportDocument = TypeCompiler.Compile(WorkspaceExport);

let t: TestServer;
let ws: { id: string; email: string; cookie: string };
let templateId: string;
let renderId: string;
let assetId: string;
beforeAll(async () => {
  t = await startTestServer();
  ws = await t.makeWorkspace("Export Co");
  const template = await t.call("/v1/templates", { cookie: ws.cookie, body: { name: "Note", content: { type: "text", text: "Hello" } } });
  templateId = template.body.id;
  await t.call(`/v1/templates/${templateId}/publish`, { cookie: ws.cookie, method: "POST" });
  await t.call(`/v1/templates/${templateId}`, { cookie: ws.cookie, method: "PATCH", body: { content: { type: "text", text: "Hello again" } } });
  await t.call(`/v1/templates/${templateId}/publish`, { cookie: ws.cookie, method: "POST" });
  const render = await t.call("/v1/renders?wait=30", { cookie: ws.cookie, body: { html: "<h1>Exported</h1>", metadata: { order: "A-1" } } });
  expect(render.body.status).toBe("succeeded");
  renderId = render.body.id;
  const sample = { kind: "image", mediaType: "image/png", filename: "pixel.png", bytes: PNG };
  const asset = await t.call("/v1/assets", { cookie: ws.cookie, body: registration(sample) });
  expect((await put(t, asset.body.uploadUrl, sample.bytes, asset.body.uploadHeaders)).status).toBe(200);
  assetId = asset.body.id;
  // Another workspace's data must never appear.
  const other = await t.makeWorkspace("Someone Else");
  await t.call("/v1/templates", { cookie: other.cookie, body: { name: "Secret", content: { type: "text", text: "theirs" } } });
});
afterAll(() => t.stop());
// Sign-in is limited to 10 a minute per address.
beforeEach(() => t.clock.advance(61_000));

const exportAs = (options: { cookie?: string; key?: string; headers?: Record<string, string> }) => t.call("/v1/export", options);

describe("GET /v1/export", () => {
  test("answers the workspace as one JSON attachment, every part in its API shape, without any address", async () => {
    const res = await exportAs({ cookie: ws.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const day = t.clock.now().toISOString().slice(0, 10);
    const { slug } = (await t.server.store.get<{ slug: string }>("SELECT slug FROM workspaces WHERE id = $id", { id: ws.id }))!;
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="renderd-export-${slug}-${day}.json"`);
    const doc = res.body;
    expect(exportDocument.Check(doc)).toBe(true);
    expect(doc.exportedAt).toBe(t.clock.now().toISOString());
    expect(doc.workspace).toMatchObject({ id: ws.id, name: "Export Co", maxActiveRenders: 10, suspended: false });

    expect(doc.templates.map((x: any) => x.id)).toEqual([templateId]);
    const [template] = doc.templates;
    expect(template.draft).toEqual({ content: { type: "text", text: "Hello again" } });
    expect(template.versions.map((v: any) => [v.version, v.source.content.text])).toEqual([
      [2, "Hello again"],
      [1, "Hello"],
    ]);

    const render = doc.renders.find((r: any) => r.id === renderId);
    expect(render).toMatchObject({ status: "succeeded", metadata: { order: "A-1" }, result: { pages: 1 } });
    expect(Object.keys(render.result).sort()).toEqual(["bytes", "pages"]);
    expect(doc.assets).toEqual([expect.objectContaining({ id: assetId, kind: "image", filename: "pixel.png", size: PNG.byteLength })]);
    const text = JSON.stringify(doc);
    for (const secretish of ["downloadUrl", "uploadUrl", "token=", "/results/", "/downloads/"]) expect(text).not.toContain(secretish);
    expect(text).not.toContain("Secret");

    expect(doc.usage).toEqual([expect.objectContaining({ rendersSucceeded: 1, pages: 1 })]);
    const actions = doc.auditEvents.map((e: any) => e.action);
    expect(actions[0]).toBe("workspace.exported");
    expect(actions).toContain("template.published");
    expect(actions).toContain("asset.uploaded");
  });

  test("audited as workspace.exported by the caller", async () => {
    await exportAs({ cookie: ws.cookie });
    const key = await t.makeKey(ws.id, ["audit:read"]);
    const [event] = (await t.call("/v1/audit-events?action=workspace.exported", { key })).body.items;
    expect(event).toMatchObject({ actorType: "user", actorEmail: ws.email, resourceType: "workspace", resourceId: ws.id, resourceName: "Export Co" });
  });

  test("any member's session may export; an API key needs admin:manage; no credential is 401", async () => {
    const added = await t.call("/v1/members", { cookie: ws.cookie, body: { email: `reader-${Date.now()}@example.test`, role: "member" } });
    const member = await t.signIn(added.body.member.email, added.body.oneTimePassword);
    expect((await exportAs({ cookie: member })).status).toBe(200);
    expect((await exportAs({ key: await t.makeKey(ws.id, ["admin:manage"]) })).status).toBe(200);
    const narrow = await exportAs({ key: await t.makeKey(ws.id, ["render:read", "audit:read"]) });
    expect(narrow.status).toBe(403);
    expect(narrow.body.error.message).toContain("admin:manage");
    expect((await exportAs({})).status).toBe(401);
    expect((await t.call("/v1/export?format=csv", { cookie: ws.cookie })).status).toBe(400);
  });

  test("the audit history goes only to who may read GET /v1/audit-events: an owner, an admin, a key with audit:read — a member's export has none", async () => {
    const joined = async (role: string) => {
      const added = await t.call("/v1/members", { cookie: ws.cookie, body: { email: `${role}-${Date.now()}@example.test`, role } });
      return t.signIn(added.body.member.email, added.body.oneTimePassword);
    };
    const callers = {
      owner: { cookie: ws.cookie },
      admin: { cookie: await joined("admin") },
      member: { cookie: await joined("member") },
      "admin:manage key": { key: await t.makeKey(ws.id, ["admin:manage"]) },
      "admin:manage and audit:read key": { key: await t.makeKey(ws.id, ["admin:manage", "audit:read"]) },
    };
    const seen: Record<string, [number, boolean]> = {};
    for (const [who, credentials] of Object.entries(callers)) {
      const exported = await exportAs(credentials);
      expect(exported.status).toBe(200);
      seen[who] = [(await t.call("/v1/audit-events", credentials)).status, exported.body.auditEvents.length > 0];
    }
    expect(seen).toEqual({
      owner: [200, true],
      admin: [200, true],
      member: [403, false],
      "admin:manage key": [403, false],
      "admin:manage and audit:read key": [200, true],
    });
  });

  test("a suspended workspace's members can still export (spec 3.4); its API keys are refused (5.3.7)", async () => {
    const other = await t.makeWorkspace("Suspended Co", "member");
    const key = await t.makeKey(other.id, ["admin:manage"]);
    const admin = await t.signIn();
    expect((await t.call(`/v1/companies/${other.id}/allowances`, { cookie: admin, method: "PUT", body: { maxActiveRenders: 10, rendersPerMinute: 60, suspended: true } })).status).toBe(200);
    const res = await exportAs({ cookie: other.cookie });
    expect(res.status).toBe(200);
    expect(res.body.workspace).toMatchObject({ id: other.id, suspended: true });
    expect((await exportAs({ key })).status).toBe(403);
  });

  test("a long history crosses many pages and flushes without losing or repeating a row", async () => {
    const big = await t.makeWorkspace("Big History");
    for (let i = 0; i < 260; i++) await t.makeKey(big.id, ["render:read"]);
    const res = await fetch(t.url + "/v1/export", { headers: { cookie: big.cookie } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.length).toBeGreaterThan(64 * 1024);
    const doc = JSON.parse(text);
    expect(exportDocument.Check(doc)).toBe(true);
    const stored = (await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM audit_events WHERE workspace_id = $ws", { ws: big.id }))!.n;
    expect(doc.auditEvents.length).toBe(stored);
    expect(new Set(doc.auditEvents.map((e: any) => e.id)).size).toBe(stored);
  });
});
