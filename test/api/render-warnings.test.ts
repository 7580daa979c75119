import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";

// Real renders through the API (the pool's Chromium): what a page asked for and did not get (docs/rendering.md "Warnings").
let t: TestServer;
let key: string;

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1" });
  key = await t.makeKey(t.defaultWorkspaceId, ["render:create", "render:read"]);
});
afterAll(() => t.stop());

const external = `<h1>Invoice</h1><img src="https://images.example.com/logo.png?X-Amz-Signature=SECRET123#top">`;

describe("render warnings", () => {
  test("an external image: the render succeeds and warns, naming the host, without the query", async () => {
    const res = await t.call("/v1/renders?wait=30", { key, body: { html: external } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("succeeded");
    const warning = { reason: "blocked", url: "https://images.example.com/logo.png", host: "images.example.com" };
    expect(res.body.warnings).toEqual([warning]);
    const got = await t.call(`/v1/renders/${res.body.id}`, { key });
    expect(got.body.warnings).toEqual([warning]);
    expect(JSON.stringify(got.body)).not.toContain("SECRET123");
  });

  test("failOnBlockedResources: the render fails RENDER_FAILED, naming what it did not get", async () => {
    const res = await t.call("/v1/renders?wait=30", { key, body: { html: external, failOnBlockedResources: true } });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe("RENDER_FAILED");
    expect(res.body.error.message).toContain("https://images.example.com/logo.png");
    expect(res.body.error.message).toContain("failOnBlockedResources");
    const got = await t.call(`/v1/renders/${res.body.error.renderId}`, { key });
    expect(got.body).toMatchObject({ status: "failed", error: { code: "RENDER_FAILED" } });
  });

  test("more than 20 things left out: the first 20 warnings", async () => {
    const html = Array.from({ length: 30 }, (_, i) => `<img src="https://cdn${i}.example.com/i.png">`).join("");
    const res = await t.call("/v1/renders?wait=30", { key, body: { html } });
    expect(res.body.status).toBe("succeeded");
    expect(res.body.warnings).toHaveLength(20);
    expect(new Set(res.body.warnings.map((w: { host: string }) => w.host)).size).toBe(20);
  });

  test("an asset that is not uploaded warns asset_not_found; a page that got everything has no warnings", async () => {
    const missing = await t.call("/v1/renders?wait=30", { key, body: { html: `<img src="https://assets.renderd.invalid/ast_missing">` } });
    expect(missing.body.warnings).toEqual([{ reason: "asset_not_found", url: "https://assets.renderd.invalid/ast_missing" }]);
    const clean = await t.call("/v1/renders?wait=30", { key, body: { html: "<p>nothing to fetch</p>" } });
    expect(clean.body.status).toBe("succeeded");
    expect(clean.body.warnings).toBeUndefined();
  });

  test("failOnBlockedResources must be a boolean", async () => {
    const res = await t.call("/v1/renders", { key, body: { html: "<p>x</p>", failOnBlockedResources: "yes" } });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe("/failOnBlockedResources");
  });
});
