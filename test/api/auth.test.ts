import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_EMAIL, ADMIN_PASSWORD, PUBLIC_URL, startTestServer, type TestServer } from "../harness";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

describe("sign-in, sign-out, me", () => {
  test("sign-in sets a signed HttpOnly SameSite=Lax cookie and me answers the user and workspace", async () => {
    const res = await t.call("/v1/auth/sign-in", { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    expect(res.status).toBe(200);
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toStartWith("renderd_session=");
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Lax");
    expect(setCookie).not.toContain("Secure");
    const cookie = setCookie.split(";")[0]!;
    const me = await t.call("/v1/auth/me", { cookie });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe(ADMIN_EMAIL);
    expect(me.body.user.platformAdmin).toBe(true);
    expect(me.body.workspace).toEqual({ id: t.defaultWorkspaceId, name: "Default", role: "owner" });
  });

  test("e-mail is matched case-insensitively", async () => {
    const cookie = await t.signIn(ADMIN_EMAIL.toUpperCase());
    expect(cookie).toStartWith("renderd_session=");
  });

  test("a wrong password and an unknown e-mail get the same 401", async () => {
    const wrong = await t.call("/v1/auth/sign-in", { body: { email: ADMIN_EMAIL, password: "nope-nope" } });
    const unknown = await t.call("/v1/auth/sign-in", { body: { email: "ghost@example.test", password: "nope-nope" } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error).toEqual(unknown.body.error);
    expect(wrong.headers.get("set-cookie")).toBeNull();
  });

  test("sign-out ends the session", async () => {
    const cookie = await t.signIn();
    const out = await t.call("/v1/auth/sign-out", { cookie, method: "POST" });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    const me = await t.call("/v1/auth/me", { cookie });
    expect(me.status).toBe(401);
  });

  test("a tampered cookie is refused", async () => {
    const cookie = await t.signIn();
    const tampered = cookie.slice(0, -3) + (cookie.endsWith("AAA") ? "BBB" : "AAA");
    const res = await t.call("/v1/auth/me", { cookie: tampered });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");
  });

  test("a session expires after 7 days", async () => {
    const cookie = await t.signIn();
    t.clock.advance(7 * 24 * 3600 * 1000 + 1000);
    const res = await t.call("/v1/auth/me", { cookie });
    expect(res.status).toBe(401);
  });

  test("me with an API key is refused: it is a console operation", async () => {
    const key = await t.makeKey(t.defaultWorkspaceId, ["admin:manage"]);
    const res = await t.call("/v1/auth/me", { key });
    expect(res.status).toBe(403);
  });

  test("a sign-in from another site's Origin is refused, naming the expected one", async () => {
    const res = await t.call("/v1/auth/sign-in", { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe(`Sign-in must come from Origin ${PUBLIC_URL}, the console's; if the console is opened at another address, set PUBLIC_URL to it.`);
  });

  test("sign-in is audited in the user's workspace", async () => {
    const key = await t.makeKey(t.defaultWorkspaceId, ["audit:read"]);
    const before = await t.call("/v1/audit-events?action=user.signed_in&limit=100", { key });
    await t.signIn();
    const after = await t.call("/v1/audit-events?action=user.signed_in&limit=100", { key });
    expect(after.body.items.length).toBe(before.body.items.length + 1);
    const event = after.body.items[0];
    expect(event.actorType).toBe("user");
    expect(event.actorEmail).toBe(ADMIN_EMAIL);
    expect(event.resourceType).toBe("user");
    expect(event.requestId).toBeTruthy();
  });
});

describe("Origin check on cookie-authenticated writes", () => {
  test("a write with the session cookie and no Origin is refused, naming the expected Origin", async () => {
    const cookie = await t.signIn();
    const res = await t.call("/v1/api-keys", { cookie, origin: null, body: { name: "k", scopes: [] } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    expect(res.body.error.message).toBe(
      `A request authenticated by the session cookie must carry Origin ${PUBLIC_URL}, the console's; if the console is opened at another address, set PUBLIC_URL to it.`,
    );
  });

  test("a write with the session cookie and a foreign Origin is refused", async () => {
    const cookie = await t.signIn();
    const res = await t.call("/v1/api-keys", { cookie, origin: "http://console.example.test.evil.example", body: { name: "k", scopes: [] } });
    expect(res.status).toBe(403);
  });

  test("the same write with the console's Origin goes through", async () => {
    const cookie = await t.signIn();
    const res = await t.call("/v1/api-keys", { cookie, origin: PUBLIC_URL, body: { name: "k", scopes: [] } });
    expect(res.status).toBe(201);
  });

  test("reads with the cookie need no Origin", async () => {
    const cookie = await t.signIn();
    const res = await t.call("/v1/api-keys", { cookie, origin: null });
    expect(res.status).toBe(200);
  });
});

describe("several workspaces", () => {
  test("x-workspace-id picks one of the user's workspaces; another's is 404", async () => {
    const other = await t.makeWorkspace("Second");
    const me = await t.call("/v1/auth/me", { cookie: other.cookie });
    expect(me.body.workspace.id).toBe(other.id);
    const foreign = await t.call("/v1/auth/me", { cookie: other.cookie, headers: { "x-workspace-id": t.defaultWorkspaceId } });
    expect(foreign.status).toBe(404);
  });

  test("a member's role limits the scopes: members cannot manage keys or read audit", async () => {
    const ws = await t.makeWorkspace("Members", "member");
    const keys = await t.call("/v1/api-keys", { cookie: ws.cookie });
    expect(keys.status).toBe(403);
    const audit = await t.call("/v1/audit-events", { cookie: ws.cookie });
    expect(audit.status).toBe(403);
    const limits = await t.call("/v1/render-limits", { cookie: ws.cookie });
    expect(limits.status).toBe(200);
  });
});

describe("sign-in rate", () => {
  test("more than 10 attempts a minute from one address: 429 with Retry-After", async () => {
    const local = await startTestServer();
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await local.call("/v1/auth/sign-in", { body: { email: "ghost@example.test", password: "wrong-password" } });
        statuses.push(res.status);
        if (res.status === 429) {
          expect(res.body.error.code).toBe("RATE_LIMITED");
          expect(res.body.error.retryable).toBe(true);
          expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
        }
      }
      expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
      expect(statuses[10]).toBe(429);
    } finally {
      await local.stop();
    }
  });

  test("every attempt counts, whatever its body: malformed, too deep, invalid or from another Origin", async () => {
    // A new minute: the window of the test above is over.
    t.clock.advance(60_000);
    const attempts = [
      { raw: "{not json" },
      { raw: "[".repeat(1000) + "]".repeat(1000) },
      { body: { email: "x" } },
      { body: { email: ["not", "a", "string"], password: 1 } },
      { body: { email: "ghost@example.test", password: "wrong-password" }, origin: "https://evil.example" },
    ];
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await t.call("/v1/auth/sign-in", attempts[i % attempts.length]!)).status);
    expect(statuses).toEqual([400, 400, 400, 400, 403, 400, 400, 400, 400, 403]);
    const eleventh = await t.call("/v1/auth/sign-in", { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    expect(eleventh.status).toBe(429);
    expect(eleventh.body.error.code).toBe("RATE_LIMITED");
    t.clock.advance(60_000);
  });
});
