import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";

// Issue 16 item 2 through the API: a paragraph Chromium would print cut (src/render/layout.ts) fails LIMIT_EXCEEDED.
// The 160px font and the 5 m page keep it small; the same paragraph of "word " at 16px on A4 is the 8 MB of the issue.
let t: TestServer;
let key: string;

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1" });
  key = await t.makeKey(t.defaultWorkspaceId, ["render:create", "render:read"]);
});
afterAll(() => t.stop());

test("a render that would lose the tail of a long paragraph fails 413 LIMIT_EXCEEDED, saying what to do", async () => {
  const html = `<style>@page{size:5000mm 5000mm;margin:0}p{font-size:160px}</style><p>${"word ".repeat(120_000)}</p>`;
  const res = await t.call("/v1/renders?wait=60", { key, body: { html } });
  expect(res.status).toBe(413);
  expect(res.body.error.code).toBe("LIMIT_EXCEEDED");
  expect(res.body.error.message).toContain("Split the text into several paragraphs");
  const got = await t.call(`/v1/renders/${res.body.error.renderId}`, { key });
  expect(got.body).toMatchObject({ status: "failed", error: { code: "LIMIT_EXCEEDED" } });
});
