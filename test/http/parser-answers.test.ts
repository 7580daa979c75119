/** Every answer in the envelope (issue 26), as far as it can be: what reaches renderd's handlers is answered in the 7.1
 * envelope, and what Bun's HTTP parser refuses before any handler runs keeps its right status, closes the connection
 * and leaves the server serving. Why those few answers have no body is in docs/security.md, "Answers before renderd". */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { unhandledResponse } from "../../src/http/responses";
import { startTestServer, type TestServer } from "../harness";
import { collectedLog } from "../log-lines";
import { rawRequest, requestHead } from "../raw-http";

let t: TestServer;
let key: string;
beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1" });
  key = await t.makeKey(t.defaultWorkspaceId, ["template:write", "template:read"]);
});
afterAll(() => t.stop());

const json = (headers: Record<string, string> = {}) => ({ "x-api-key": key, "content-type": "application/json", ...headers });

/** The requests Bun's parser (uWebSockets) refuses itself, and the fixed answer it writes for each. */
const REFUSED_BY_THE_PARSER: [string, () => string, number][] = [
  ["an HTTP version other than 1.0 and 1.1", () => "GET /health HTTP/2.0\r\nHost: x\r\n\r\n", 505],
  ["a space inside the request target", () => "GET /he alth HTTP/1.1\r\nHost: x\r\n\r\n", 505],
  ["a control character in the request target", () => "GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n", 505],
  ["a method with a character no method has", () => "G(T /health HTTP/1.1\r\nHost: x\r\n\r\n", 400],
  ["HTTP/1.1 without a Host header", () => "GET /health HTTP/1.1\r\n\r\n", 400],
  ["a header line without a colon", () => "GET /health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400],
  ["two Content-Length headers that differ", () => requestHead("POST", "/v1/templates", "x", json({ "content-length": "2" })).replace("\r\n\r\n", "\r\ncontent-length: 3\r\n\r\n") + "{}", 400],
  ["a Content-Length past 2^64", () => requestHead("POST", "/v1/templates", "x", json({ "content-length": "99999999999999999999" })) + "{}", 400],
  ["a chunk size that is not hexadecimal", () => requestHead("POST", "/v1/templates", "x", json({ "transfer-encoding": "chunked" })) + "zz\r\n{}\r\n0\r\n\r\n", 400],
  ["a header section over 16 KiB", () => requestHead("GET", "/health", "x", { "x-padding": "a".repeat(20_000) }), 431],
];

describe("what Bun's parser refuses before any handler runs", () => {
  test.each(REFUSED_BY_THE_PARSER)("%s: the right status, Connection: close, no body, and the server serves on", async (_name, request, status) => {
    const reply = await rawRequest(t.server.port, request());
    expect([reply.status, reply.headers.connection, reply.body]).toEqual([status, "close", ""]);
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
  });
});

describe("what reaches a handler is answered in the envelope", () => {
  test("a body declared past Bun's own limit (128 MiB) is 413 LIMIT_EXCEEDED from its Content-Length, before it is sent", async () => {
    const reply = await rawRequest(t.server.port, requestHead("POST", "/v1/templates", "x", json({ "content-length": String(200 * 1024 * 1024) })), { body: "{" });
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body)).toEqual({ error: { code: "LIMIT_EXCEEDED", message: "The request body is larger than 10000000 bytes (RENDER_MAX_INPUT_BYTES).", retryable: false } });
  });

  test("a body the client cuts off (half-closed after 12 of 100 declared bytes) gets no answer — Bun closes on the client's FIN — and nothing is kept", async () => {
    const before = (await t.call("/v1/templates", { key })).body.items.length;
    const reply = await rawRequest(t.server.port, requestHead("POST", "/v1/templates", "x", json({ "content-length": "100" })), { body: '{"name":"cut', endAfter: true });
    expect(reply.status).toBe(0);
    expect((await t.call("/v1/templates", { key })).body.items.length).toBe(before);
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
  });

  test("an error that escapes every handler is the INTERNAL envelope, logged, never Bun's error page with its message and stack", async () => {
    const { log, lines } = collectedLog();
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      development: false,
      error: unhandledResponse(log),
      fetch() {
        throw new Error("a bug's secret detail");
      },
    });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/anything`);
      expect(res.status).toBe(500);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(await res.json()).toEqual({ error: { code: "INTERNAL", message: "Something went wrong on our side; try again.", retryable: true } });
      expect(lines.map((l) => [l.msg, l.err.message, l.requestId === res.headers.get("x-request-id")])).toEqual([["unhandled error", "a bug's secret detail", true]]);
    } finally {
      server.stop(true);
    }
  });
});
