/** GET /v1/render-activity: the outstanding renders the console's overview sets against maxActiveRenders. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

describe("GET /v1/render-activity", () => {
  test("counts queued and processing renders, real and test apart, of the caller's workspace only; ended ones drop out", async () => {
    const ws = await t.makeWorkspace("Activity");
    const other = await t.makeWorkspace("Activity elsewhere");
    const key = await t.makeKey(ws.id, ["render:read", "render:create", "render:cancel"]);
    const activity = async () => (await t.call("/v1/render-activity", { key })).body;
    expect(await activity()).toEqual({ activeRenders: 0, activeTestRenders: 0 });

    await t.server.worker.stop();
    try {
      const html = { html: "<p>queued</p>" };
      const first = await t.call("/v1/renders", { key, body: html });
      await t.call("/v1/renders", { key, body: html });
      await t.call("/v1/renders", { key, body: { ...html, test: true } });
      await t.call("/v1/renders", { key: await t.makeKey(other.id, ["render:create"]), body: html });
      expect(await activity()).toEqual({ activeRenders: 2, activeTestRenders: 1 });
      // The member's session sees the same, as it does the render limits.
      expect((await t.call("/v1/render-activity", { cookie: ws.cookie })).body).toEqual({ activeRenders: 2, activeTestRenders: 1 });
      expect((await t.call(`/v1/renders/${first.body.id}/cancel`, { key, method: "POST" })).status).toBe(200);
      expect(await activity()).toEqual({ activeRenders: 1, activeTestRenders: 1 });
    } finally {
      await t.server.worker.start();
    }
  });

  test("needs render:read; takes no query parameters", async () => {
    const ws = await t.makeWorkspace("Activity scopes");
    expect((await t.call("/v1/render-activity", { key: await t.makeKey(ws.id, ["usage:read"]) })).status).toBe(403);
    expect((await t.call("/v1/render-activity")).status).toBe(401);
    expect((await t.call("/v1/render-activity?status=queued", { key: await t.makeKey(ws.id, ["render:read"]) })).status).toBe(400);
  });
});
