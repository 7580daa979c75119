/** The whole path of spec 6: a real render ends, its event is written with the final state, and the dispatcher
 * delivers it, signed, to a real receiver. */
import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { startTestServer, type TestServer } from "../harness";
import { slowHtml } from "../render/fixtures";
import { until } from "../wait";
import { RECEIVER_ENV, startReceiver, type Received, type Receiver } from "./receiver";

let t: TestServer;
let receiver: Receiver;
let key: string;
let secret: string;

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1", RENDER_MAX_PAGES: "1", ...RECEIVER_ENV });
  receiver = startReceiver();
  key = await t.makeKey(t.defaultWorkspaceId, ["render:create", "render:read", "render:cancel", "webhook:manage"]);
  const endpoint = await t.call("/v1/webhook-endpoints", { key, body: { url: `${receiver.url}/hook`, eventTypes: ["render.succeeded", "render.failed", "render.cancelled"] } });
  secret = endpoint.body.secret;
});
afterAll(async () => {
  receiver.stop();
  await t.stop();
});

function verified(request: Received): any {
  setSystemTime(t.clock.now());
  try {
    return new Webhook(secret).verify(request.body, request.headers);
  } finally {
    setSystemTime();
  }
}

async function eventFor(renderId: string): Promise<any> {
  await until(() => receiver.requests.some((r) => JSON.parse(r.body).data.renderId === renderId));
  return verified(receiver.requests.find((r) => JSON.parse(r.body).data.renderId === renderId)!);
}

describe("render end events reach the receiver, signed", () => {
  test("a succeeded render: render.succeeded with the render's id; no PDF and no link in the body", async () => {
    const render = await t.call("/v1/renders?wait=30", { key, body: { html: "<p>event</p>" } });
    expect(render.body.status).toBe("succeeded");
    const event = await eventFor(render.body.id);
    expect(event).toEqual({ id: expect.stringMatching(/^evt_/), type: "render.succeeded", createdAt: render.body.finishedAt, data: { renderId: render.body.id, status: "succeeded", test: false } });
  });

  test("a failed render: render.failed with data.errorCode", async () => {
    const render = await t.call("/v1/renders?wait=30", { key, body: { html: "<p style='page-break-after:always'>1</p><p>2</p>", test: true } });
    expect(render.status).toBe(413);
    const event = await eventFor(render.body.error.renderId);
    expect(event.type).toBe("render.failed");
    expect(event.data).toEqual({ renderId: render.body.error.renderId, status: "failed", test: true, errorCode: "LIMIT_EXCEEDED" });
  });

  test("a cancelled render: render.cancelled, exactly once, even though it was being printed", async () => {
    const render = await t.call("/v1/renders", { key, body: { html: slowHtml(1) } });
    await until(async () => (await t.server.store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id: render.body.id }))!.status === "processing");
    await t.call(`/v1/renders/${render.body.id}/cancel`, { key, method: "POST" });
    const event = await eventFor(render.body.id);
    expect(event.type).toBe("render.cancelled");
    await Bun.sleep(300);
    expect(receiver.requests.filter((r) => JSON.parse(r.body).data.renderId === render.body.id)).toHaveLength(1);
  });
});
