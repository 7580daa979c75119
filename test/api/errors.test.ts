import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";

let t: TestServer;
let cookie: string;
let key: string;
beforeAll(async () => {
  t = await startTestServer({ RENDER_MAX_INPUT_BYTES: "2048" });
  cookie = await t.signIn();
  key = await t.makeKey(t.defaultWorkspaceId, ["admin:manage", "audit:read", "render:read"]);
});
afterAll(() => t.stop());

function expectEnvelope(body: any, code: string) {
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(typeof body.error.retryable).toBe("boolean");
}

describe("error envelope (spec 7.1)", () => {
  test("unknown route: 404 NOT_FOUND with a request id", async () => {
    const res = await t.call("/v1/no-such-thing");
    expect(res.status).toBe(404);
    expectEnvelope(res.body, "NOT_FOUND");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  test("unknown route outside /v1: 404 NOT_FOUND", async () => {
    const res = await t.call("/nothing/here");
    expect(res.status).toBe(404);
    expectEnvelope(res.body, "NOT_FOUND");
  });

  test("wrong method on a known path: 405 with Allow", async () => {
    const res = await t.call("/v1/api-keys", { method: "PATCH", key });
    expect(res.status).toBe(405);
    expectEnvelope(res.body, "BAD_REQUEST");
    expect(res.headers.get("allow")).toBe("GET, HEAD, POST");
  });

  test("wrong method on a path with a parameter: 405", async () => {
    const res = await t.call("/v1/api-keys/key_abc/rotate", { method: "GET", key });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  test("malformed JSON: 400 BAD_REQUEST", async () => {
    const res = await t.call("/v1/api-keys", { cookie, raw: "{not json" });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, "BAD_REQUEST");
    expect(res.body.error.message).toContain("not valid JSON");
  });

  test("body over RENDER_MAX_INPUT_BYTES: 413 LIMIT_EXCEEDED", async () => {
    const res = await t.call("/v1/api-keys", { cookie, body: { name: "x".repeat(5000), scopes: [] } });
    expect(res.status).toBe(413);
    expectEnvelope(res.body, "LIMIT_EXCEEDED");
  });

  test("chunked body over the limit without content-length: 413", async () => {
    const chunks = new ReadableStream({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode(`{"pad${i}":"${"y".repeat(500)}",`));
        c.close();
      },
    });
    const res = await fetch(t.url + "/v1/api-keys", {
      method: "POST",
      headers: { cookie, origin: "http://console.example.test", "content-type": "application/json" },
      body: chunks,
      // @ts-expect-error Bun/undici option for streaming bodies
      duplex: "half",
    });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("LIMIT_EXCEEDED");
  });

  test("a body that is not JSON: 400 naming the content type", async () => {
    const res = await t.call("/v1/api-keys", { cookie, raw: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, "BAD_REQUEST");
  });

  test("extra fields are refused with 400 and a JSON pointer to each", async () => {
    const res = await t.call("/v1/api-keys", { cookie, body: { name: "k", scopes: ["audit:read"], color: "red", admin: true } });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, "BAD_REQUEST");
    const paths = res.body.error.details.map((d: any) => d.path).sort();
    expect(paths).toEqual(["/admin", "/color"]);
  });

  test("schema violations carry JSON-pointer paths into arrays", async () => {
    const res = await t.call("/v1/api-keys", { cookie, body: { name: "", scopes: ["audit:read", "render:read", "fly:away"] } });
    expect(res.status).toBe(400);
    const details = res.body.error.details;
    expect(details.find((d: any) => d.path === "/name")).toBeTruthy();
    const scope = details.find((d: any) => d.path === "/scopes/2");
    expect(scope.message).toContain("template:read");
  });

  test("a missing required field is named", async () => {
    const res = await t.call("/v1/api-keys", { cookie, body: { name: "k" } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ path: "/scopes", message: "is required" });
  });

  test("a limit that is not a whole number from 1 to 100: 400 at /limit saying so", async () => {
    for (const limit of ["abc", "-1", "1.5", "0", "101"]) {
      const res = await t.call(`/v1/audit-events?limit=${limit}`, { key });
      expect(res.status).toBe(400);
      expectEnvelope(res.body, "BAD_REQUEST");
      expect(res.body.error.details).toEqual([{ path: "/limit", message: "must be a whole number from 1 to 100" }]);
    }
  });

  test("a cursor that was never given out: 400 at /cursor saying where cursors come from", async () => {
    const res = await t.call("/v1/audit-events?cursor=cAAAA", { key });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: "/cursor", message: "is not a cursor this list gave out" }]);
    const malformed = await t.call("/v1/audit-events?cursor=-x", { key });
    expect(malformed.body.error.details).toEqual([{ path: "/cursor", message: "must be the nextCursor of a page this list gave out" }]);
  });

  test("?wait=120: the message says what wait must be, not the pattern", async () => {
    const renderKey = await t.makeKey(t.defaultWorkspaceId, ["render:create"]);
    const res = await t.call("/v1/renders?wait=120", { key: renderKey, body: { html: "<p>x</p>" } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe("The query string is not valid: wait must be a whole number of seconds from 0 to 60.");
    expect(res.body.error.details).toEqual([{ path: "/wait", message: "must be a whole number of seconds from 0 to 60" }]);
  });

  test("the message names the first problem and counts the others", async () => {
    const res = await t.call("/v1/api-keys", { cookie, body: { name: "k", scopes: ["audit:read"], color: "red", admin: true } });
    expect(res.body.error.message).toMatch(/^The request body is not valid: (color|admin) is not an allowed field \(and 1 more in details\)\.$/);
  });

  test("unknown query parameters are refused", async () => {
    const res = await t.call("/v1/audit-events?colour=blue", { key });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe("/colour");
  });

  test("a path id that is not an Identifier: 400", async () => {
    const res = await t.call("/v1/audit-events/-bad", { key });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: "/id", message: "must be an id: 1 to 128 letters, digits, _ or -, starting with a letter or digit" }]);
  });

  test("authentication comes before body validation", async () => {
    const res = await t.call("/v1/api-keys", { body: { nonsense: true } });
    expect(res.status).toBe(401);
    expectEnvelope(res.body, "UNAUTHORIZED");
  });

  test("x-request-id: a valid one is echoed, an invalid one replaced", async () => {
    const given = await t.call("/health", { headers: { "x-request-id": "trace-123_abc" } });
    expect(given.headers.get("x-request-id")).toBe("trace-123_abc");
    const bad = await t.call("/health", { headers: { "x-request-id": "no spaces allowed" } });
    expect(bad.headers.get("x-request-id")).toMatch(/^req_/);
    const err = await t.call("/v1/nothing", { headers: { "x-request-id": "err-trace-1" } });
    expect(err.headers.get("x-request-id")).toBe("err-trace-1");
  });
});
