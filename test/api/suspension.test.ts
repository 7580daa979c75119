/** Suspended workspaces, route by route (spec 3.4, 5.3.7; docs/decisions.md "Suspended workspaces"): members can sign
 * in, read and export; every write is refused unless its route declares `whileSuspended`. The tables run over every
 * route the app registers, so a new route falls under the rule without being listed here. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CLI_ACTOR } from "../../src/auth/actor";
import { createUser, hashPassword } from "../../src/modules/users/service";
import { local, PDF, PNG, put, registration } from "../fixtures/assets";
import { makePkcs12 } from "../pdf/certs";
import { startTestServer, type TestServer } from "../harness";
import { RECEIVER_ENV } from "../webhooks/receiver";

// The writes a suspended workspace's members may still make, with the reason each is allowed (docs/decisions.md).
const ALLOWED_WRITES: Record<string, string> = {
  "POST /v1/auth/sign-in": "signing in (no workspace is written)",
  "POST /v1/auth/sign-out": "acts on the user",
  "POST /v1/auth/password": "acts on the user",
  "POST /v1/api-keys/:id/revoke": "takes access away",
  "DELETE /v1/api-keys/:id": "takes access away",
  "DELETE /v1/webhook-endpoints/:id": "stops deliveries",
  "DELETE /v1/destinations/:id": "stops deliveries",
  "POST /v1/renders/:id/cancel": "stops work",
  "POST /v1/pdf-operations/:id/cancel": "stops work",
  "PUT /v1/companies/:id/allowances": "a platform administrator acts on the workspace in the path (and restores it)",
  "PUT /uploads/:id": "a signed address issued before the suspension; no new one is issued",
};
const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

let t: TestServer;
let admin: string;
let owner: { id: string; email: string; password: string; cookie: string };
let member: string;
const ids: Record<string, string> = {};
const signed: Record<string, string> = {};
let pendingUpload: { uploadUrl: string; uploadHeaders: Record<string, string> };

beforeAll(async () => {
  // openssl makes the example certificate valid from now, so the server's clock must be past its making.
  const pkcs12 = Buffer.from(makePkcs12()).toString("base64");
  t = await startTestServer({ ...RECEIVER_ENV, DESTINATION_ALLOW_PRIVATE: "1" });
  t.clock.set(new Date());
  admin = await t.signIn();
  owner = await t.makeWorkspace("Suspended Co");
  const passwordHash = await hashPassword("member-password-1");
  await t.server.store.tx((tx) => createUser(tx, t.clock, { actor: CLI_ACTOR, requestId: "test-setup" }, { email: "member@suspended.test", passwordHash, workspace: owner.id, role: "member", platformAdmin: false }));
  member = await t.signIn("member@suspended.test", "member-password-1");

  // One of each resource, made before the suspension, so that every read has something to read.
  const key = await t.makeKey(owner.id, ["template:write", "template:publish", "render:create", "render:read", "asset:manage", "webhook:manage", "certificate:manage", "destination:manage", "admin:manage"]);
  const created = async (path: string, body: unknown) => {
    const res = await t.call(path, { key, body });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  ids.templates = (await created("/v1/templates", { name: "Note", content: { type: "text", text: "Hello" } })).id;
  await created(`/v1/templates/${ids.templates}/publish`, {});
  ids["webhook-endpoints"] = (await created("/v1/webhook-endpoints", { url: "http://127.0.0.1:9/in", eventTypes: ["render.failed"] })).id;
  ids.destinations = (await created("/v1/destinations", { name: "Archive", type: "http", config: { url: "http://127.0.0.1:9/in", method: "PUT" } })).id;
  ids.certificates = (await created("/v1/certificates", { name: "Signing", pkcs12, password: "secret" })).id;
  ids["api-keys"] = (await t.call("/v1/api-keys", { cookie: owner.cookie, body: { name: "leaked", scopes: ["render:read"] } })).body.id;
  const uploaded = await created("/v1/assets", registration({ kind: "image", mediaType: "image/png", filename: "a.png", bytes: PNG }));
  expect((await put(t, uploaded.uploadUrl, PNG, uploaded.uploadHeaders)).status).toBe(200);
  ids.assets = uploaded.id;
  signed.downloads = (await t.call(`/v1/assets/${uploaded.id}`, { key })).body.downloadUrl;
  const pdf = await created("/v1/assets", registration({ kind: "pdf", mediaType: "application/pdf", filename: "c.pdf", bytes: PDF }));
  expect((await put(t, pdf.uploadUrl, PDF, pdf.uploadHeaders)).status).toBe(200);
  ids["template-conversions"] = (await created("/v1/template-conversions", { assetId: pdf.id })).id;
  const pending = await created("/v1/assets", registration({ kind: "pdf", mediaType: "application/pdf", filename: "b.pdf", bytes: PDF }));
  pendingUpload = pending;
  const printed = await t.call("/v1/renders?wait=30", { key, body: { html: "<p>before</p>" } });
  expect(printed.body.status).toBe("succeeded");
  signed.results = printed.body.result.downloadUrl;
  // A route whose resource is not the one its path names reads the one made for it (a succeeded render's page, a PDF
  // asset's form fields, a split's part).
  ids["/v1/renders/:id/pages/:n"] = printed.body.id;
  signed["/results/:id/pages/:n"] = printed.body.result.pageImageUrl.replace("{n}", "1");
  ids["/v1/assets/:id/form-fields"] = pdf.id;
  const split = await created("/v1/pdf-operations?wait=30", { operation: "split", inputs: [{ renderId: printed.body.id }], ranges: ["1", "1"] });
  expect(split.status).toBe("succeeded");
  ids["pdf-operations"] = split.id;
  signed["/results/:id/outputs/:i"] = split.result.outputs[1].downloadUrl;
  // A batch created with merge: true and printed before the suspension: its merged PDF is a read.
  const batch = await created("/v1/renders/batch", { merge: true, items: [{ html: "<p>merged</p>" }] });
  ids["renders/batch"] = batch.batchId;
  for (let i = 0; i < 300 && (await t.call(`/v1/renders/${batch.items[0].id}`, { key })).body.status !== "succeeded"; i++) await Bun.sleep(50);
  // A render still queued when the suspension comes: the worker is paused so that it stays queued.
  await t.server.worker.stop();
  ids.renders = (await created("/v1/renders", { html: "<p>queued</p>" })).id;
  ids["audit-events"] = (await t.call("/v1/audit-events?limit=1", { cookie: owner.cookie })).body.items[0].id;
  ids["platform/workspaces"] = owner.id;
  ids["template-starters"] = (await t.call("/v1/template-starters", { cookie: owner.cookie })).body.items[0].id;

  // Suspend the workspace, and the administrator's own one too: restoring must work from a suspended workspace.
  for (const ws of [owner.id, t.defaultWorkspaceId]) {
    const res = await t.call(`/v1/companies/${ws}/allowances`, { cookie: admin, method: "PUT", body: { maxActiveRenders: 10, rendersPerMinute: 60, suspended: true } });
    expect(res.status).toBe(200);
  }
  // A suspended workspace renders nothing, so the queued render stays queued.
  await t.server.worker.start();
});
afterAll(() => t.stop());

function routes(): { method: string; path: string; name: string }[] {
  return t.server.api
    .routes
    .filter((r) => r.method !== "HEAD" && r.method !== "OPTIONS")
    .map((r) => ({ ...r, name: `${r.method} ${r.path}` }));
}

// concrete turns a route pattern into an address of the resource made above (`/v1/templates/:id` → its id). A refused
// write is refused before its resource is looked up, so `anyId` fills parameters no setup made a resource for.
function concrete(path: string, anyId = false): string {
  const resource = /^\/v1\/(.+?)\/:id/.exec(path)?.[1];
  return path.replace(/:(\w+)/g, (_, param: string) => {
    if (param === "version") return "1";
    if (param === "file") return "reference.js";
    if (param === "n") return "1";
    const id = param === "id" && resource ? (ids[path] ?? ids[resource]) : undefined;
    if (id) return id;
    if (anyId) return "id_made_up";
    throw new Error(`no resource was made for ${path}: add one to the suspension test's setup`);
  });
}

describe("a suspended workspace's console session", () => {
  test("every write not declared is 403 FORBIDDEN naming the suspension, for owners and members alike", async () => {
    const writes = routes().filter((r) => !SAFE.has(r.method) && !(r.name in ALLOWED_WRITES));
    expect(writes.length).toBeGreaterThan(15);
    for (const r of writes) {
      for (const [who, cookie] of [["owner", owner.cookie], ["member", member]] as const) {
        const res = await t.call(concrete(r.path, true), { cookie, method: r.method, body: {} });
        expect({ route: r.name, who, status: res.status, message: res.body?.error?.message }).toEqual({
          route: r.name,
          who,
          status: 403,
          message: `Workspace ${owner.id} is suspended: its members can read and export it but change nothing until a platform administrator restores it.`,
        });
      }
    }
  });

  test("every read answers 200: the workspace's own through its owner, the platform's through the (suspended) administrator", async () => {
    const reads = routes().filter((r) => r.method === "GET");
    for (const r of reads) {
      const address = r.path.startsWith("/downloads/") || r.path.startsWith("/results/") ? local(t, (signed[r.path] ?? signed[r.path.split("/")[1]!])!).slice(t.url.length) : concrete(r.path);
      const cookie = r.path.startsWith("/v1/platform/") ? admin : owner.cookie;
      const res = await t.call(address, { cookie });
      expect({ route: r.name, status: res.status }).toEqual({ route: r.name, status: 200 });
    }
  });

  test("every declared write is a route of the app, and answers as documented", async () => {
    const names = new Set(routes().map((r) => r.name));
    for (const name of Object.keys(ALLOWED_WRITES)) expect(names.has(name)).toBe(true);

    expect((await put(t, pendingUpload.uploadUrl, PDF, pendingUpload.uploadHeaders)).status).toBe(200);
    const cancelled = await t.call(`/v1/renders/${ids.renders}/cancel`, { cookie: owner.cookie, method: "POST" });
    expect([cancelled.status, cancelled.body.status]).toEqual([200, "cancelled"]);
    expect((await t.call(`/v1/api-keys/${ids["api-keys"]}/revoke`, { cookie: owner.cookie, method: "POST" })).body).toEqual({ id: ids["api-keys"], revoked: true });
    expect((await t.call(`/v1/api-keys/${ids["api-keys"]}`, { cookie: owner.cookie, method: "DELETE" })).body).toEqual({ id: ids["api-keys"], deleted: true });
    expect((await t.call(`/v1/webhook-endpoints/${ids["webhook-endpoints"]}`, { cookie: owner.cookie, method: "DELETE" })).status).toBe(200);
    expect((await t.call(`/v1/destinations/${ids.destinations}`, { cookie: owner.cookie, method: "DELETE" })).status).toBe(200);
    // A member's session: its scopes still apply (a member holds render:cancel, not admin:manage).
    expect((await t.call(`/v1/api-keys/${ids["api-keys"]}/revoke`, { cookie: member, method: "POST" })).body.error.message).toBe("This operation needs the admin:manage scope.");

    const second = await t.signIn(owner.email, owner.password);
    expect((await t.call("/v1/auth/sign-out", { cookie: second, method: "POST" })).status).toBe(200);
    const changed = await t.call("/v1/auth/password", { cookie: owner.cookie, body: { currentPassword: owner.password, newPassword: "a long new passphrase" } });
    expect(changed.body).toEqual({ passwordChanged: true });

    // The platform administrator, whose own workspace is suspended too, restores the workspace; writes work again.
    const restored = await t.call(`/v1/companies/${owner.id}/allowances`, { cookie: admin, method: "PUT", body: { maxActiveRenders: 10, rendersPerMinute: 60, suspended: false } });
    expect([restored.status, restored.body.suspended]).toEqual([200, false]);
    expect((await t.call("/v1/templates", { cookie: owner.cookie, body: { name: "After", content: { type: "text", text: "Hi" } } })).status).toBe(201);
  });
});
