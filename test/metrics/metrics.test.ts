import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { startTestServer, type TestServer } from "../harness";
import { LiveState } from "../../src/modules/health/internal";
import { parseExposition, sampleValue, type Sample } from "./prometheus";
import { RECEIVER_ENV, startReceiver, type Receiver } from "../webhooks/receiver";

let t: TestServer;
let key: string;
let renderId: string;
let samples: Sample[];
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1", API_RATE_LIMIT_PER_MINUTE: "40", ...RECEIVER_ENV });
  key = await t.makeKey(t.defaultWorkspaceId, ["render:create", "render:read", "webhook:manage"]);
  // The endpoint answers 500: the render's event is attempted once and waits for its retry.
  receiver = startReceiver(() => new Response(null, { status: 500 }));
  const endpoint = await t.call("/v1/webhook-endpoints", { key, body: { url: `${receiver.url}/hook`, eventTypes: ["render.succeeded"] } });
  expect(endpoint.status).toBe(201);
  const made = await t.call("/v1/renders?wait=30", { key, body: { html: "<h1>metrics</h1>" } });
  expect(made.body.status).toBe("succeeded");
  await t.server.webhooks.runOnce();
  expect(receiver.requests).toHaveLength(1);
  renderId = made.body.id;
  await t.call(`/v1/renders/${renderId}`, { key });
  await t.call("/no/such/path/rnd_123");
  // One render a minute: the second is refused by the workspace's allowance, before the address limit is reached.
  await t.server.store.tx((tx) => tx.run("UPDATE workspaces SET renders_per_minute = 1 WHERE id = $id", { id: t.defaultWorkspaceId }));
  expect((await t.call("/v1/renders", { key, body: { html: "<p>over the allowance</p>" } })).status).toBe(429);
  let status = 0;
  for (let i = 0; i < 50 && status !== 429; i++) status = (await t.call(`/v1/renders/${renderId}`, { key })).status;
  expect(status).toBe(429);
  const res = await fetch(`${t.internalUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  samples = parseExposition(await res.text());
});
afterAll(async () => {
  receiver.stop();
  await t.stop();
});

describe("GET /metrics on the internal port", () => {
  test("counts the render that succeeded, with its queue and print times", () => {
    expect(sampleValue(samples, "renderd_renders_total", { status: "succeeded", test: "false" })).toBe(1);
    expect(sampleValue(samples, "renderd_render_seconds_count")).toBe(1);
    expect(sampleValue(samples, "renderd_render_seconds_sum")).toBeGreaterThan(0);
    expect(sampleValue(samples, "renderd_render_queue_seconds_count")).toBe(1);
  });

  test("reads the queue, the pool and the webhook backlog at scrape time", () => {
    expect(sampleValue(samples, "renderd_queue_depth", { state: "queued" })).toBe(0);
    expect(sampleValue(samples, "renderd_queue_depth", { state: "processing" })).toBe(0);
    const pages = ["busy", "idle", "recycling"].map((state) => sampleValue(samples, "renderd_pool_pages", { state }));
    expect(pages.every((n) => n !== undefined)).toBe(true);
    expect(pages.reduce((a, b) => a! + b!, 0)).toBe(1);
    expect(sampleValue(samples, "renderd_browser_restarts_total")).toBe(0);
    expect(sampleValue(samples, "renderd_webhook_backlog")).toBe(1);
  });

  test("reads the PDFs spooled in the store, and their bytes, at scrape time", async () => {
    const scrape = async () => parseExposition(await (await fetch(`${t.internalUrl}/metrics`)).text());
    await t.server.files.settled();
    expect(sampleValue(await scrape(), "renderd_output_spool_pdfs")).toBe(0);
    // A PDF whose write to the file store has not happened (a bucket refusing writes): it waits in the store.
    const pdf = new TextEncoder().encode("%PDF-1.7 waiting for the file store");
    await t.server.store.tx(async (tx) => t.server.files.spool(tx, "ab".repeat(32), pdf));
    try {
      const spooled = await scrape();
      expect(sampleValue(spooled, "renderd_output_spool_pdfs")).toBe(1);
      expect(sampleValue(spooled, "renderd_output_spool_bytes")).toBe(pdf.byteLength);
    } finally {
      await t.server.store.tx((tx) => tx.run("DELETE FROM output_spool"));
    }
  });

  test("counts webhook attempts by outcome", () => {
    expect(sampleValue(samples, "renderd_webhook_deliveries_total", { outcome: "retrying" })).toBe(1);
    expect(sampleValue(samples, "renderd_webhook_deliveries_total", { outcome: "succeeded" })).toBeUndefined();
  });

  test("labels requests with route templates, never raw ids; unknown paths are `unmatched`", () => {
    const requests = samples.filter((s) => s.name === "renderd_http_requests_total");
    expect(sampleValue(samples, "renderd_http_requests_total", { method: "POST", route: "/v1/renders", status: "200" })).toBe(1);
    expect(sampleValue(samples, "renderd_http_requests_total", { method: "GET", route: "/v1/renders/:id", status: "200" })).toBeGreaterThan(1);
    expect(sampleValue(samples, "renderd_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1);
    expect(sampleValue(samples, "renderd_http_request_duration_seconds_count", { method: "GET", route: "/v1/renders/:id" })).toBeGreaterThan(1);
    const labels = samples.flatMap((s) => Object.values(s.labels));
    expect(labels.some((v) => v.includes(renderId) || v.includes("rnd_"))).toBe(false);
    expect(requests.every((s) => s.labels.route === "unmatched" || s.labels.route!.startsWith("/"))).toBe(true);
  });

  test("counts requests refused by the address rate limit and by a workspace's allowance", () => {
    expect(sampleValue(samples, "renderd_rate_limited_total", { reason: "address" })).toBe(1);
    expect(sampleValue(samples, "renderd_http_requests_total", { method: "GET", route: "unmatched", status: "429" })).toBe(1);
    expect(sampleValue(samples, "renderd_rate_limited_total", { reason: "allowance" })).toBe(1);
    expect(sampleValue(samples, "renderd_http_requests_total", { method: "POST", route: "/v1/renders", status: "429" })).toBe(1);
  });

  test("carries the process metrics", () => {
    for (const name of ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_start_time_seconds", "process_open_fds"])
      expect(sampleValue(samples, name)).toBeGreaterThan(0);
    expect(sampleValue(samples, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
  });

  test("answers 405 to a method other than GET or HEAD", async () => {
    const res = await fetch(`${t.internalUrl}/metrics`, { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("GET /internal/state", () => {
  test("answers the pool, the renders printing, the start time and the version", async () => {
    const res = await fetch(`${t.internalUrl}/internal/state`);
    expect(res.status).toBe(200);
    const state = await res.json();
    expect(Value.Check(LiveState, state)).toBe(true);
    expect(state).toMatchObject({ version: "0.0.0", pid: process.pid, draining: false, inFlight: [], pool: { size: 1, state: "running" } });
  });
});
