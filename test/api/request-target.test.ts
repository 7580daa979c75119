/** One path for everyone (issue 26): the router, the API rate limit, the sign-in limit and the request log read the same
 * parsed path whatever the Host header — short, long, empty, missing — or the form of the request target (absolute,
 * dot segments, a trailing slash). A 1–3 character Host used to route `POST /zzzz/v1/auth/sign-in` to sign-in while the
 * limiters counted nothing, and `GET /health` with `Host: app` answered 405. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";
import { collectedLog } from "../log-lines";
import { rawRequest, requestHead, type RawReply } from "../raw-http";
import { until } from "../wait";

/** How a request can name its host and target; `target` rewrites the route's path for that form. */
const FORMS: { name: string; host: string | null; version?: string; target?: (path: string) => string }[] = [
  { name: "one-letter Host", host: "x" },
  { name: "three-letter Host", host: "app" },
  { name: "long Host", host: `${"h".repeat(200)}.example.test:8443` },
  { name: "empty Host", host: "" },
  { name: "Host with a slash", host: "a/b" },
  { name: "no Host (HTTP/1.0)", host: null, version: "HTTP/1.0" },
  { name: "absolute form", host: "x", target: (path) => `http://elsewhere.example${path}` },
  { name: "dot segments", host: "pdf", target: (path) => path.replace("/v1/", "/v1/zz/../") },
  { name: "trailing slash", host: "app", target: (path) => `${path}/` },
];
const API_LIMIT = 2 * FORMS.length;
const SIGN_IN_LIMIT = 10;

const { log, lines } = collectedLog();
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ API_RATE_LIMIT_PER_MINUTE: String(API_LIMIT) }, undefined, { log });
});
afterAll(() => t.stop());

function send(form: (typeof FORMS)[number], method: string, path: string, body?: string): Promise<RawReply> {
  const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
  return rawRequest(t.server.port, requestHead(method, form.target?.(path) ?? path, form.host, headers, form.version), { body });
}

const errorCode = (reply: RawReply) => JSON.parse(reply.body).error?.code;

// Each test starts a new minute of the manual clock: fixed windows, so no test inherits another's counts.
function nextMinute() {
  t.clock.set(new Date(Math.ceil((t.clock.now().getTime() + 1) / 60_000) * 60_000));
}

describe("whatever the Host or request target", () => {
  test("/health answers 200 in every form, Host: app included", async () => {
    for (const form of FORMS) {
      const reply = await send(form, "GET", "/health");
      expect({ form: form.name, status: reply.status, body: reply.body }).toEqual({ form: form.name, status: 200, body: '{"status":"ok"}' });
    }
  });

  test("the sign-in limit counts sign-in and password attempts in every form, and the eleventh is refused", async () => {
    nextMinute();
    const attempt = JSON.stringify({ email: "nobody@example.test", password: "not-the-password" });
    const statuses: string[] = [];
    for (let i = 0; i < SIGN_IN_LIMIT; i++) {
      const form = FORMS[i % FORMS.length]!;
      const path = i % 2 === 0 ? "/v1/auth/sign-in" : "/v1/auth/password";
      const reply = await send(form, "POST", path, attempt);
      statuses.push(`${form.name} ${path} ${reply.status} ${errorCode(reply)}`);
    }
    expect(statuses.filter((s) => !/ (401 UNAUTHORIZED|400 BAD_REQUEST)$/.test(s))).toEqual([]);
    for (const form of FORMS) {
      const reply = await send(form, "POST", "/v1/auth/sign-in", attempt);
      expect({ form: form.name, status: reply.status, code: errorCode(reply) }).toEqual({ form: form.name, status: 429, code: "RATE_LIMITED" });
    }
  });

  test("API_RATE_LIMIT_PER_MINUTE counts /v1/ requests in every form, and the one past it is refused", async () => {
    nextMinute();
    for (let i = 0; i < API_LIMIT; i++) {
      const form = FORMS[i % FORMS.length]!;
      const reply = await send(form, "GET", "/v1/render-limits");
      expect({ form: form.name, status: reply.status }).toEqual({ form: form.name, status: 401 });
    }
    for (const form of FORMS) {
      const reply = await send(form, "GET", "/v1/render-limits");
      expect({ form: form.name, status: reply.status, code: errorCode(reply), retryAfter: !!reply.headers["retry-after"] }).toEqual({
        form: form.name,
        status: 429,
        code: "RATE_LIMITED",
        retryAfter: true,
      });
    }
  });

  test("a path under another prefix is not routed to the route it ends with, and the log names the path routed", async () => {
    nextMinute();
    const reply = await send(FORMS[0]!, "POST", "/zzzz/v1/auth/sign-in", "{}");
    expect([reply.status, errorCode(reply)]).toEqual([404, "NOT_FOUND"]);
    expect(JSON.parse(reply.body).error.message).toContain("/zzzz/v1/auth/sign-in");
    // The request's line is written once its answer has gone out (src/app.ts).
    const logged = () => lines.filter((l) => l.msg === "request" && l.requestId === reply.headers["x-request-id"]);
    await until(() => logged().length > 0);
    expect(logged().map((l) => [l.path, l.status])).toEqual([["/zzzz/v1/auth/sign-in", 404]]);
  });
});
