/** members: /v1/members over the real server — the owner rules as a table, then each route with its audit events. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";
import { membershipRefusal } from "../../src/modules/members/service";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());
// Sign-in is limited to 10 a minute per address; each test signs in a few times.
beforeEach(() => t.clock.advance(61_000));

let emails = 0;
const email = (label: string) => `${label}-${++emails}@example.test`;

async function add(cookie: string, body: unknown) {
  return t.call("/v1/members", { cookie, body });
}

async function auditOf(workspaceId: string, action: string) {
  const key = await t.makeKey(workspaceId, ["audit:read"]);
  return (await t.call(`/v1/audit-events?action=${action}`, { key })).body.items;
}

describe("membershipRefusal", () => {
  // "new": not a member yet; "removed": taken out; "allowed": no refusal.
  test.each([
    ["owner", "new", "owner", 1, "allowed"],
    ["admin", "new", "owner", 1, "FORBIDDEN"],
    ["admin", "new", "admin", 1, "allowed"],
    ["admin", "member", "admin", 1, "allowed"],
    ["admin", "owner", "admin", 2, "FORBIDDEN"],
    ["admin", "owner", "removed", 2, "FORBIDDEN"],
    ["owner", "owner", "admin", 2, "allowed"],
    ["owner", "owner", "admin", 1, "CONFLICT"],
    ["owner", "owner", "removed", 1, "CONFLICT"],
    ["owner", "admin", "removed", 1, "allowed"],
  ] as const)("%s moving %s to %s with %d owners: %s", (actor, from, to, owners, outcome) => {
    const refusal = membershipRefusal(actor, from === "new" ? null : from, to === "removed" ? null : to, owners);
    expect(refusal?.code ?? "allowed").toBe(outcome);
  });
});

describe("POST /v1/members", () => {
  test("a new user is created with a one-time password that signs in; both events are in the workspace's audit", async () => {
    const ws = await t.makeWorkspace("New Users");
    const address = email("new");
    const res = await add(ws.cookie, { email: address, role: "member", name: "New Person" });
    expect(res.status).toBe(201);
    expect(res.body.member).toEqual({ userId: expect.stringMatching(/^usr_/), email: address, name: "New Person", role: "member", createdAt: t.clock.now().toISOString() });
    expect(res.body.oneTimePassword).toMatch(/^[0-9A-Za-z]{24}$/);
    const cookie = await t.signIn(address, res.body.oneTimePassword);
    const me = await t.call("/v1/auth/me", { cookie });
    expect(me.body.workspace).toEqual({ id: ws.id, name: "New Users", role: "member" });
    // Only the argon2id hash is kept.
    expect(JSON.stringify(await t.server.store.all("SELECT * FROM users"))).not.toContain(res.body.oneTimePassword);
    const [added] = await auditOf(ws.id, "member.added");
    expect(added).toMatchObject({ actorType: "user", actorEmail: ws.email, resourceType: "user", resourceId: res.body.member.userId, resourceName: address, metadata: { role: "member", newUser: true } });
    expect(JSON.stringify(added)).not.toContain(res.body.oneTimePassword);
    expect((await auditOf(ws.id, "user.created")).some((e: any) => e.resourceId === res.body.member.userId)).toBe(true);
  });

  test("an existing user (any case of the e-mail) is added without a password; a member again is 409", async () => {
    const first = await t.makeWorkspace("Home");
    const other = await t.makeWorkspace("Other");
    const res = await add(other.cookie, { email: first.email.toUpperCase(), role: "admin", name: "ignored" });
    expect(res.status).toBe(201);
    expect(res.body.oneTimePassword).toBeUndefined();
    expect(res.body.member).toMatchObject({ email: first.email, name: null, role: "admin" });
    const me = await t.call("/v1/auth/me", { cookie: first.cookie });
    expect(me.body.workspaces.map((w: any) => w.id)).toEqual([first.id, other.id]);
    const again = await add(other.cookie, { email: first.email, role: "member" });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "CONFLICT", details: [{ path: "/email", message: "is already a member" }] });
    expect((await auditOf(other.id, "member.added"))[0].metadata).toEqual({ role: "admin", newUser: false });
  });

  test("bad bodies: 400 at the field", async () => {
    const ws = await t.makeWorkspace("Bodies");
    for (const [body, path] of [
      [{ email: "no-at-sign", role: "member" }, "/email"],
      [{ email: email("x"), role: "boss" }, "/role"],
      [{ email: email("x") }, "/role"],
      [{ email: email("x"), role: "member", extra: 1 }, "/extra"],
      [{ email: email("x"), role: "member", name: "" }, "/name"],
    ] as const) {
      const res = await add(ws.cookie, body);
      expect(res.status).toBe(400);
      expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
    }
  });

  test("only an owner may add an owner", async () => {
    const ws = await t.makeWorkspace("Admins Only", "admin");
    const res = await add(ws.cookie, { email: email("o"), role: "owner" });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain("Only an owner");
    expect((await add(ws.cookie, { email: email("a"), role: "admin" })).status).toBe(201);
  });

  test("a member (no admin:manage) is 403; an API key is refused even with admin:manage; no credential is 401", async () => {
    const ws = await t.makeWorkspace("Plain", "member");
    expect((await add(ws.cookie, { email: email("m"), role: "member" })).status).toBe(403);
    expect((await t.call("/v1/members", { cookie: ws.cookie })).status).toBe(403);
    const key = await t.makeKey(ws.id, ["admin:manage"]);
    const byKey = await t.call("/v1/members", { key, body: { email: email("k"), role: "member" } });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.message).toContain("console session");
    expect((await t.call("/v1/members", { body: { email: email("n"), role: "member" } })).status).toBe(401);
  });
});

describe("GET /v1/members", () => {
  test("pages newest first; an API key with admin:manage may list; another workspace's members never show", async () => {
    const ws = await t.makeWorkspace("Listing");
    await t.makeWorkspace("Elsewhere");
    for (const label of ["a", "b", "c"]) {
      t.clock.advance(1000);
      expect((await add(ws.cookie, { email: email(label), role: "member" })).status).toBe(201);
    }
    const key = await t.makeKey(ws.id, ["admin:manage"]);
    const first = await t.call("/v1/members?limit=2", { key });
    expect(first.status).toBe(200);
    expect(first.body.items.length).toBe(2);
    const second = await t.call(`/v1/members?limit=2&cursor=${first.body.nextCursor}`, { key });
    expect(second.body.nextCursor).toBeUndefined();
    const all = [...first.body.items, ...second.body.items];
    expect(all.map((m: any) => m.role)).toEqual(["member", "member", "member", "owner"]);
    expect(all.at(-1).email).toBe(ws.email);
    const times = all.map((m: any) => m.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(Object.keys(all[0]).sort()).toEqual(["createdAt", "email", "name", "role", "userId"]);
    expect((await t.call("/v1/members?limit=0", { key })).status).toBe(400);
    expect((await t.call("/v1/members?role=owner", { key })).status).toBe(400);
    expect((await t.call("/v1/members", { key: await t.makeKey(ws.id, ["audit:read"]) })).status).toBe(403);
  });
});

describe("PATCH /v1/members/{userId}", () => {
  test("changes the role and audits it; the same role again writes nothing", async () => {
    const ws = await t.makeWorkspace("Roles");
    const { userId } = (await add(ws.cookie, { email: email("r"), role: "member" })).body.member;
    const res = await t.call(`/v1/members/${userId}`, { cookie: ws.cookie, method: "PATCH", body: { role: "admin" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ userId, role: "admin" });
    expect((await t.call(`/v1/members/${userId}`, { cookie: ws.cookie, method: "PATCH", body: { role: "admin" } })).status).toBe(200);
    const events = await auditOf(ws.id, "member.role_changed");
    expect(events.length).toBe(1);
    expect(events[0]).toMatchObject({ resourceType: "user", resourceId: userId, metadata: { role: "admin", previousRole: "member" } });
  });

  test("the last owner cannot be demoted; with a second owner they can; an admin may not touch an owner", async () => {
    const ws = await t.makeWorkspace("Owners");
    const ownerId = (await t.call("/v1/auth/me", { cookie: ws.cookie })).body.user.id;
    const demote = await t.call(`/v1/members/${ownerId}`, { cookie: ws.cookie, method: "PATCH", body: { role: "admin" } });
    expect(demote.status).toBe(409);
    expect(demote.body.error.message).toBe("This is the workspace's last owner; make another member an owner first.");

    const second = await add(ws.cookie, { email: email("owner2"), role: "admin" });
    const adminCookie = await t.signIn(second.body.member.email, second.body.oneTimePassword);
    const byAdmin = await t.call(`/v1/members/${ownerId}`, { cookie: adminCookie, method: "PATCH", body: { role: "member" } });
    expect(byAdmin.status).toBe(403);
    expect((await t.call(`/v1/members/${second.body.member.userId}`, { cookie: adminCookie, method: "PATCH", body: { role: "owner" } })).status).toBe(403);

    expect((await t.call(`/v1/members/${second.body.member.userId}`, { cookie: ws.cookie, method: "PATCH", body: { role: "owner" } })).status).toBe(200);
    const now = await t.call(`/v1/members/${ownerId}`, { cookie: ws.cookie, method: "PATCH", body: { role: "member" } });
    expect(now.status).toBe(200);
    expect(now.body.role).toBe("member");
    // The demoted owner's session lost admin:manage on the next request.
    expect((await t.call("/v1/members", { cookie: ws.cookie })).status).toBe(403);
  });

  test("an unknown user, or a user of another workspace, is 404", async () => {
    const ws = await t.makeWorkspace("Strangers");
    const other = await t.makeWorkspace("Stranger Home");
    const otherId = (await t.call("/v1/auth/me", { cookie: other.cookie })).body.user.id;
    for (const id of [otherId, "usr_nobody"]) {
      const res = await t.call(`/v1/members/${id}`, { cookie: ws.cookie, method: "PATCH", body: { role: "member" } });
      expect(res.status).toBe(404);
    }
  });
});

describe("DELETE /v1/members/{userId}", () => {
  test("204; the removed user's session loses the workspace at once; audited", async () => {
    const ws = await t.makeWorkspace("Removal");
    const added = await add(ws.cookie, { email: email("gone"), role: "admin" });
    const cookie = await t.signIn(added.body.member.email, added.body.oneTimePassword);
    expect((await t.call("/v1/members", { cookie, headers: { "x-workspace-id": ws.id } })).status).toBe(200);

    const res = await t.call(`/v1/members/${added.body.member.userId}`, { cookie: ws.cookie, method: "DELETE" });
    expect(res.status).toBe(204);
    expect(res.body).toBe("");
    expect((await t.call("/v1/members", { cookie, headers: { "x-workspace-id": ws.id } })).status).toBe(404);
    const me = await t.call("/v1/auth/me", { cookie });
    expect(me.body.workspace).toBeNull();
    expect((await t.call("/v1/members", { cookie })).status).toBe(403);
    const [removed] = await auditOf(ws.id, "member.removed");
    expect(removed).toMatchObject({ resourceType: "user", resourceId: added.body.member.userId, metadata: { role: "admin" } });
    expect((await t.call(`/v1/members/${added.body.member.userId}`, { cookie: ws.cookie, method: "DELETE" })).status).toBe(404);
  });

  test("the last owner cannot be removed, not even by themselves", async () => {
    const ws = await t.makeWorkspace("Last Owner");
    const ownerId = (await t.call("/v1/auth/me", { cookie: ws.cookie })).body.user.id;
    const res = await t.call(`/v1/members/${ownerId}`, { cookie: ws.cookie, method: "DELETE" });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("CONFLICT");
    expect((await t.call("/v1/members", { cookie: ws.cookie })).body.items.length).toBe(1);
  });

  test("a cookie write without the console's Origin is refused", async () => {
    const ws = await t.makeWorkspace("Origin");
    const ownerId = (await t.call("/v1/auth/me", { cookie: ws.cookie })).body.user.id;
    const res = await t.call(`/v1/members/${ownerId}`, { cookie: ws.cookie, method: "DELETE", origin: "https://evil.example" });
    expect(res.status).toBe(403);
  });
});
