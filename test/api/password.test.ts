/** POST /v1/auth/password: the console's own password change (docs/decisions.md "Passwords"). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

// Each test starts in a fresh sign-in minute, so the limiter's count is this test's own.
function freshMinute(): void {
  t.clock.advance(60_000);
}

function change(cookie: string, body: unknown, origin?: string | null) {
  return t.call("/v1/auth/password", { cookie, body, origin });
}

describe("changing one's password", () => {
  test("200 {passwordChanged: true}: this session stays, the user's other sessions end, the old password stops working", async () => {
    freshMinute();
    const ws = await t.makeWorkspace("Password Co");
    const other = await t.signIn(ws.email, ws.password);
    const bystander = await t.makeWorkspace("Bystander Co");
    const res = await change(ws.cookie, { currentPassword: ws.password, newPassword: "a much longer passphrase" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ passwordChanged: true });
    expect((await t.call("/v1/auth/me", { cookie: ws.cookie })).status).toBe(200);
    const ended = await t.call("/v1/auth/me", { cookie: other });
    expect(ended.status).toBe(401);
    expect((await t.call("/v1/auth/me", { cookie: bystander.cookie })).status).toBe(200);
    expect((await t.call("/v1/auth/sign-in", { body: { email: ws.email, password: ws.password } })).status).toBe(401);
    expect((await t.call("/v1/auth/sign-in", { body: { email: ws.email, password: "a much longer passphrase" } })).status).toBe(200);
  });

  test("audited as user.password_changed in the user's workspace, by the user, with the sessions it ended", async () => {
    freshMinute();
    const ws = await t.makeWorkspace("Audited Password Co");
    await t.signIn(ws.email, ws.password);
    const res = await t.call("/v1/auth/password", {
      cookie: ws.cookie,
      body: { currentPassword: ws.password, newPassword: "correct horse battery staple" },
      headers: { "x-request-id": "pw-change-1" },
    });
    expect(res.status).toBe(200);
    const events = await t.call("/v1/audit-events?action=user.password_changed", { cookie: ws.cookie });
    expect(events.status).toBe(200);
    expect(events.body.items).toHaveLength(1);
    const [e] = events.body.items;
    expect(e).toMatchObject({ actorType: "user", actorEmail: ws.email, resourceType: "user", resourceName: ws.email, requestId: "pw-change-1", metadata: { sessionsEnded: 1 } });
    expect(JSON.stringify(e)).not.toContain("correct horse");
  });

  test("a wrong current password is 400 at /currentPassword (not 401: the session is fine) and changes nothing", async () => {
    freshMinute();
    const ws = await t.makeWorkspace("Wrong Current Co");
    const res = await change(ws.cookie, { currentPassword: "not-the-password", newPassword: "another long passphrase" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("BAD_REQUEST");
    expect(res.body.error.details).toEqual([{ path: "/currentPassword", message: "is not your current password" }]);
    expect((await t.call("/v1/auth/me", { cookie: ws.cookie })).status).toBe(200);
    expect((await t.call("/v1/auth/sign-in", { body: { email: ws.email, password: ws.password } })).status).toBe(200);
  });

  test.each([
    ["short", "too-short", "must be 12 to 1024 characters (got 9)"],
    ["too long", "x".repeat(1025), "must be string length less or equal to 1024"],
  ])("a %s new password is 400 at /newPassword saying the rule", async (_name, newPassword, message) => {
    freshMinute();
    const ws = await t.makeWorkspace("Weak Co");
    const res = await change(ws.cookie, { currentPassword: ws.password, newPassword });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: "/newPassword", message }]);
    expect((await t.call("/v1/auth/sign-in", { body: { email: ws.email, password: ws.password } })).status).toBe(200);
  });

  test("the new password must differ from the current one", async () => {
    freshMinute();
    const ws = await t.makeWorkspace("Same Co");
    const res = await change(ws.cookie, { currentPassword: ws.password, newPassword: ws.password });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: "/newPassword", message: "must differ from the current password" }]);
  });

  test("only a console session with the console's Origin: API keys 403, a foreign Origin 403, nothing 401", async () => {
    freshMinute();
    const ws = await t.makeWorkspace("Origin Co");
    const body = { currentPassword: ws.password, newPassword: "a long enough passphrase" };
    const key = await t.makeKey(ws.id, ["admin:manage"]);
    expect((await t.call("/v1/auth/password", { key, body })).status).toBe(403);
    expect((await change(ws.cookie, body, "https://evil.example")).status).toBe(403);
    expect((await change(ws.cookie, body, null)).status).toBe(403);
    expect((await t.call("/v1/auth/password", { body })).status).toBe(401);
    expect((await t.call("/v1/auth/sign-in", { body: { email: ws.email, password: ws.password } })).status).toBe(200);
  });

  test("attempts are counted by the sign-in limiter: the 11th guess in a minute is 429, and so is sign-in", async () => {
    freshMinute();
    const ws = await t.makeWorkspace("Guessing Co"); // its sign-in is attempt 1
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await change(ws.cookie, { currentPassword: `guess-${i}`, newPassword: "a long enough passphrase" })).status);
    expect(statuses.slice(0, 9)).toEqual(Array(9).fill(400));
    expect(statuses[9]).toBe(429);
    const signIn = await t.call("/v1/auth/sign-in", { body: { email: ws.email, password: ws.password } });
    expect(signIn.status).toBe(429);
    freshMinute();
    expect((await change(ws.cookie, { currentPassword: ws.password, newPassword: "a long enough passphrase" })).status).toBe(200);
  });

  test("every attempt counts, whatever its body: one that fails validation, or is no JSON, is counted too", async () => {
    freshMinute();
    const ws = await t.makeWorkspace("Careless Co"); // its sign-in is attempt 1
    const bodies: unknown[] = [{}, { currentPassword: 7 }, { currentPassword: "x", newPassword: "x", extra: 1 }];
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await change(ws.cookie, bodies[i % bodies.length])).status);
    expect(statuses).toEqual(Array(9).fill(400));
    const eleventh = await change(ws.cookie, { currentPassword: ws.password, newPassword: "a long enough passphrase" });
    expect([eleventh.status, eleventh.body.error.message]).toEqual([429, "Too many password attempts; try again later."]);
  });
});
