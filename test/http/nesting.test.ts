import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkDepth, MAX_JSON_DEPTH } from "../../src/http/body";
import { startTestServer, type TestServer } from "../harness";

let t: TestServer;
let cookie: string;
beforeAll(async () => {
  t = await startTestServer();
  cookie = await t.signIn();
});
afterAll(() => t.stop());

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Every route that takes a JSON body, read from the app itself so that a new route is covered without editing this
 * list. /uploads/:id is outside /v1/: its body is the asset's bytes, streamed to disk and never parsed. */
function jsonRoutes(): Array<{ method: string; path: string; field: string }> {
  return t.server.api.routes
    .filter((r) => WRITES.has(r.method) && r.path.startsWith("/v1/"))
    .map((r) => ({ method: r.method, path: r.path.replace(/:[a-z]+/gi, "x1"), field: stringField(r) }));
}

// The body field a deep value is put in: the first string field of the route's body schema (sign-in `email`, a key's
// `name`, a render's `templateId`). The table's entries are Elysia's routes, which carry their schemas in `hooks`.
function stringField(route: object): string {
  const schema = (route as { hooks?: { body?: { properties?: Record<string, { type?: string }> } } }).hooks?.body;
  const properties = schema?.properties ?? {};
  const names = Object.keys(properties);
  return names.find((n) => properties[n]!.type === "string") ?? names[0] ?? "value";
}

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

function bodies(field: string): Array<[string, string]> {
  return [100_000, 10_000].flatMap((depth): Array<[string, string]> => [
    [`${depth} nested arrays`, nested(depth)],
    [`${depth} nested arrays in "${field}"`, `{${JSON.stringify(field)}:${nested(depth)}}`],
  ]);
}

/** pollHealth asks /health over and over until stopped; answers how many answers came and the slowest's milliseconds. */
function pollHealth(): { stop(): Promise<{ answers: number; slowest: number }> } {
  let running = true;
  const loop = (async () => {
    let slowest = 0;
    let answers = 0;
    while (running) {
      const started = performance.now();
      const res = await fetch(t.url + "/health");
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      slowest = Math.max(slowest, performance.now() - started);
      answers++;
      await Bun.sleep(5);
    }
    return { answers, slowest };
  })();
  return {
    stop() {
      running = false;
      return loop;
    },
  };
}

describe("nesting depth (issue 16)", () => {
  test("the app has JSON routes to check, sign-in, keys and renders among them, each with its string field", () => {
    const fields = Object.fromEntries(jsonRoutes().map((r) => [`${r.method} ${r.path}`, r.field]));
    expect(fields).toMatchObject({ "POST /v1/auth/sign-in": "email", "POST /v1/api-keys": "name", "POST /v1/renders": "templateId" });
    expect(Object.keys(fields).length).toBeGreaterThan(15);
  });

  // The bounds catch a stall (a deep body used to hold the event loop for 6.6 s), not speed. The server runs in the
  // test's own process, so a full garbage collection of everything the earlier test files left pauses both: 227 ms
  // in one run, past 250 ms in a CI run late in the suite. A second leaves room for that and still catches the stall.
  test("every JSON route refuses depth 100,000 and 10,000 with 400 within 1 s, /health answering within 1 s", async () => {
    const health = pollHealth();
    const slow: string[] = [];
    for (const route of jsonRoutes()) {
      // Sign-in counts every attempt (10 a minute): each route starts a new minute.
      t.clock.advance(60_000);
      for (const [name, raw] of bodies(route.field)) {
        for (const as of [{}, { cookie }]) {
          const started = performance.now();
          const res = await t.call(route.path, { method: route.method, raw, ...as });
          const ms = performance.now() - started;
          const what = `${route.method} ${route.path} ${name}${"cookie" in as ? " (signed in)" : ""}`;
          expect({ what, status: res.status, code: res.body.error?.code }).toEqual({ what, status: 400, code: "BAD_REQUEST" });
          expect(res.body.error.message).toContain(`${MAX_JSON_DEPTH} levels`);
          if (ms > 1000) slow.push(`${what}: ${Math.round(ms)} ms`);
        }
      }
    }
    const polled = await health.stop();
    expect(slow).toEqual([]);
    expect(polled.answers).toBeGreaterThan(10);
    expect(polled.slowest).toBeLessThan(1000);
  });

  test(`${MAX_JSON_DEPTH} levels pass the depth check; ${MAX_JSON_DEPTH + 1} do not`, async () => {
    // The body object is level 1, so `name` holds MAX - 1 levels: refused by the schema (not a string), not the depth.
    const atLimit = await t.call("/v1/api-keys", { cookie, raw: `{"name":${nested(MAX_JSON_DEPTH - 1)}}` });
    expect(atLimit.status).toBe(400);
    expect(atLimit.body.error.details).toContainEqual({ path: "/name", message: "must be string" });
    const over = await t.call("/v1/api-keys", { cookie, raw: `{"name":${nested(MAX_JSON_DEPTH)}}` });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toContain(`more than ${MAX_JSON_DEPTH} levels`);
  });

  test("brackets inside strings, escaped quotes among them, do not count", () => {
    const text = JSON.stringify({ a: "[{".repeat(100) + '\\"' + "[".repeat(100), b: [['"]]]]', "\\"]] });
    expect(() => checkDepth(text, 3)).not.toThrow();
    expect(() => checkDepth(text, 2)).toThrow(`more than 2 levels`);
  });

  test("a query string is flat: a deep bracket value is one string, refused by its pattern", async () => {
    const key = await t.makeKey(t.defaultWorkspaceId, ["render:create"]);
    const started = performance.now();
    const res = await t.call(`/v1/renders?wait=${encodeURIComponent(nested(1000))}`, { key, body: { html: "<p>x</p>" } });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: "/wait", message: expect.stringContaining("0 to 60") }]);
  });
});
