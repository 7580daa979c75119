/** traces: with OTEL_EXPORTER_OTLP_ENDPOINT a local OTLP/HTTP receiver gets one trace per render — the request (child of
 * the caller's traceparent, with renderd.request_id), the render's queue wait, print, finishing and store write, and the
 * webhook and HTTP destination deliveries, which send the receiver their own traceparent in the same trace. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ok, startTestServer, type TestServer } from "../harness";
import { startHttpReceiver } from "../destinations/servers";
import { until } from "../wait";
import { RECEIVER_ENV } from "../webhooks/receiver";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string } }[];
}

const spans: OtlpSpan[] = [];
const collector = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const body = (await request.json()) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
    if (new URL(request.url).pathname === "/v1/traces") for (const r of body.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
    return Response.json({});
  },
});
const receiver = startHttpReceiver();
let t: TestServer;

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

beforeAll(async () => {
  t = await startTestServer({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}`, OTEL_BSP_SCHEDULE_DELAY: "50", ...RECEIVER_ENV, DESTINATION_ALLOW_PRIVATE: "1", RENDER_WORKERS: "1" });
});
afterAll(async () => {
  await t?.stop();
  receiver.stop();
  collector.stop(true);
});

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value && String(value.stringValue ?? value.intValue);
};

test("one render's trace: request, queue wait, print, finishing, store write, webhook and HTTP destination deliveries carrying traceparent", async () => {
  const key = await t.makeKey(t.defaultWorkspaceId, ["render:create", "render:read", "webhook:manage", "destination:manage", "template:write"]);
  ok(await t.call("/v1/webhook-endpoints", { key, body: { url: `${receiver.url}/hook`, eventTypes: ["render.succeeded"] } }), 201);
  const destination = ok(await t.call("/v1/destinations", { key, body: { name: "archive", type: "http", config: { url: `${receiver.url}/file`, method: "PUT" } } }), 201);
  const template = ok(await t.call("/v1/templates", { key, body: { name: "Traced", content: { type: "text", text: "traced" }, destinationIds: [destination.id] } }), 201);

  const made = await t.call("/v1/renders?wait=30", {
    key,
    body: { templateId: template.id, test: true },
    headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, "x-request-id": "req_traced0000000000000001" },
  });
  expect(ok(made, 200).status).toBe("succeeded");
  await t.server.webhooks.runOnce();
  await t.server.deliveries.runOnce();
  await until(() => spans.some((s) => s.name === "webhook.deliver") && spans.some((s) => s.name === "destination.deliver"), 15_000);

  const trace = spans.filter((s) => s.traceId === CALLER_TRACE);
  const named = (name: string) => trace.filter((s) => s.name === name);
  const request = named("POST /v1/renders")[0]!;
  expect(request.parentSpanId).toBe(CALLER_SPAN);
  expect(request.kind).toBe(2); // SERVER
  expect(attribute(request, "renderd.request_id")).toBe("req_traced0000000000000001");
  expect(attribute(request, "http.response.status_code")).toBe("200");

  const render = named("render")[0]!;
  expect(render.parentSpanId).toBe(request.spanId);
  expect(attribute(render, "renderd.render_id")).toBe(made.body.id);
  expect(attribute(render, "renderd.request_id")).toBe("req_traced0000000000000001");
  expect(attribute(render, "renderd.status")).toBe("succeeded");
  for (const phase of ["render.queue_wait", "render.print", "render.finish", "render.store"]) {
    expect({ phase, parents: named(phase).map((s) => s.parentSpanId) }).toEqual({ phase, parents: [render.spanId] });
  }

  const webhook = named("webhook.deliver")[0]!;
  const delivery = named("destination.deliver")[0]!;
  expect(webhook.parentSpanId).toBe(request.spanId);
  expect(delivery.parentSpanId).toBe(request.spanId);
  // Each receiver continues the same trace from the delivery's own span.
  const sent = (path: string) => receiver.requests.find((r) => r.path === path)!.headers.get("traceparent");
  expect(sent("/hook")).toBe(`00-${CALLER_TRACE}-${webhook.spanId}-01`);
  expect(sent("/file")).toBe(`00-${CALLER_TRACE}-${delivery.spanId}-01`);
});

test("a request without traceparent starts a trace of its own; other requests are spanned too", async () => {
  const before = spans.length;
  const answer = await t.call("/v1/nothing-here");
  expect(answer.status).toBe(404);
  await until(() => spans.slice(before).some((s) => s.name === "GET unmatched"), 15_000);
  const span = spans.slice(before).find((s) => s.name === "GET unmatched")!;
  expect(span.parentSpanId ?? "").toBe("");
  expect(span.traceId).not.toBe(CALLER_TRACE);
  expect(attribute(span, "renderd.request_id")).toBe(answer.headers.get("x-request-id")!);
});
