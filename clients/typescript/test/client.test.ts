/** client: @renderd/client against the built binary (dist/renderd serve) — typed calls, renderAndWait, download, the
 * errors it throws, and a real webhook delivery verified with verifyWebhook. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT, startServe, type ServeProcess } from "../../../test/serve-process";
import { until } from "../../../test/wait";
import { createClient, RenderdError, verifyWebhook, WebhookVerificationError, type RenderdClient } from "../src/index";

let serve: ServeProcess;
let client: RenderdClient;
const deliveries: { headers: Headers; body: string }[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    deliveries.push({ headers: request.headers, body: await request.text() });
    return new Response(null, { status: 204 });
  },
});

beforeAll(async () => {
  const binary = join(ROOT, "dist/renderd");
  // dist/renderd is what install.sh builds (and CI runs); built here only when it is missing.
  if (!existsSync(binary)) {
    const build = Bun.spawnSync([process.execPath, "run", "scripts/build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    if (build.exitCode !== 0) throw new Error(build.stderr.toString());
  }
  serve = await startServe([binary], { WEBHOOK_ALLOW_HTTP: "1", WEBHOOK_ALLOW_PRIVATE: "1" });
  const apiKey = await serve.makeKey(["render:create", "render:read", "webhook:manage"]);
  client = createClient({ baseUrl: `${serve.url}/`, apiKey });
}, 120_000);

afterAll(async () => {
  await serve?.stop();
  receiver.stop(true);
});

test("renderAndWait answers the succeeded render with its download address; download answers the PDF's bytes", async () => {
  const render = await client.renderAndWait({ html: "<h1>Invoice 42</h1>", filename: "invoice-42.pdf" }, { idempotencyKey: "client-test-1" });
  expect(render.status).toBe("succeeded");
  expect(render.filename).toBe("invoice-42.pdf");
  expect(render.result.pages).toBe(1);
  expect(render.result.downloadUrl).toStartWith("http");
  const pdf = await client.download(render);
  expect(new TextDecoder().decode(pdf.slice(0, 5))).toBe("%PDF-");
  expect(pdf.byteLength).toBe(render.result.bytes);
  // By id too; and the same idempotency key answers the same render.
  expect((await client.download(render.id)).byteLength).toBe(pdf.byteLength);
  expect((await client.renderAndWait({ html: "<h1>Invoice 42</h1>", filename: "invoice-42.pdf" }, { idempotencyKey: "client-test-1" })).id).toBe(render.id);
});

test("the typed calls are openapi-fetch's: GET /v1/renders with an integer limit answers typed items", async () => {
  const { data, response } = await client.GET("/v1/renders", { params: { query: { limit: 1 } } });
  expect(response.status).toBe(200);
  expect(data!.items.length).toBe(1);
  expect(data!.items[0]!.id).toStartWith("rnd_");
  // @ts-expect-error: `limit` is an integer in the document, not a string.
  void (() => client.GET("/v1/renders", { params: { query: { limit: "2" } } }));
});

test("a refused request is a RenderdError with the envelope's status, code and details; a failed render names its error", async () => {
  const refused = await client.renderAndWait({ html: "" }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(RenderdError);
  expect(refused).toMatchObject({ status: 400, code: "BAD_REQUEST", retryable: false });
  expect((refused as RenderdError).details.length).toBeGreaterThan(0);

  // A render that fails within the wait is answered with the envelope, naming the render.
  const failed = await client.renderAndWait({ html: '<img src="https://example.com/logo.png">', failOnBlockedResources: true }).catch((e: unknown) => e);
  expect(failed).toBeInstanceOf(RenderdError);
  expect(failed).toMatchObject({ code: "RENDER_FAILED", retryable: false });
  expect((failed as RenderdError).renderId).toStartWith("rnd_");
  expect((failed as RenderdError).message).toContain("https://example.com/logo.png");
  const read = await client.GET("/v1/renders/{id}", { params: { path: { id: (failed as RenderdError).renderId! } } });
  expect(read.data!.status).toBe("failed");
});

test("verifyWebhook accepts a real delivery signed by renderd and refuses a changed body, another secret and an old timestamp", async () => {
  const endpoint = await client.POST("/v1/webhook-endpoints", { body: { url: `http://127.0.0.1:${receiver.port}/hooks`, eventTypes: ["render.succeeded"] } });
  expect(endpoint.response.status).toBe(201);
  const secret = endpoint.data!.secret;
  const render = await client.renderAndWait({ html: "<p>hooked</p>" });
  await until(() => deliveries.length > 0, 20_000);
  const { headers, body } = deliveries[0]!;

  const event = await verifyWebhook({ secret, headers, body });
  expect(event).toMatchObject({ type: "render.succeeded", data: { renderId: render.id, status: "succeeded", test: false } });
  // A plain record of headers (Node's IncomingMessage) works the same.
  const record = Object.fromEntries(["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [name, headers.get(name) ?? undefined]));
  expect((await verifyWebhook({ secret: ["whsec_" + btoa("another secret, 32 bytes long!!!"), secret], headers: record, body: new TextEncoder().encode(body) })).id).toBe(event.id);

  const refusals = await Promise.all([
    verifyWebhook({ secret, headers, body: body.replace("succeeded", "failed") }).catch((e: Error) => e),
    verifyWebhook({ secret: `whsec_${btoa("another secret, 32 bytes long!!!")}`, headers, body }).catch((e: Error) => e),
    verifyWebhook({ secret, headers, body, now: new Date(Date.now() + 10 * 60_000) }).catch((e: Error) => e),
  ]);
  for (const e of refusals) expect(e).toBeInstanceOf(WebhookVerificationError);
  expect(refusals.map((e) => (e as Error).message)).toEqual([
    "No signature matches the body and the secret.",
    "No signature matches the body and the secret.",
    "The webhook-timestamp is too far from now.",
  ]);
}, 60_000);
