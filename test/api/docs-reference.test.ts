/** GET /v1/docs: the reference renders every operation in headless Chromium from files this server serves itself —
 * no request leaves the server's origin and the Content-Security-Policy refuses nothing the page needs. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chromium, type Browser } from "playwright-core";
import { buildApi, type InProcessApi } from "./in-process";

let app: InProcessApi;
let server: ReturnType<typeof Bun.serve>;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  app = await buildApi({ PUBLIC_URL: "http://127.0.0.1" });
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => app.api.handle(request) });
  origin = `http://127.0.0.1:${server.port}`;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: process.getuid?.() === 0 ? ["--no-sandbox"] : [] });
});

afterAll(async () => {
  await browser?.close();
  server?.stop(true);
  await app?.close();
});

test("the page carries a Content-Security-Policy that allows nothing from elsewhere", async () => {
  const res = await fetch(`${origin}/v1/docs`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  const csp = res.headers.get("content-security-policy")!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).not.toContain("http");
  const unknown = await fetch(`${origin}/v1/docs/constructor`);
  expect(unknown.status).toBe(404);
  expect((await unknown.json()).error.code).toBe("NOT_FOUND");
});

test("Chromium renders every operation of the document with no request leaving the server", async () => {
  const page = await browser.newPage();
  const requested: string[] = [];
  const refused: string[] = [];
  page.on("request", (request) => requested.push(request.url()));
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
  });
  page.on("pageerror", (error) => refused.push(String(error)));
  await page.goto(`${origin}/v1/docs`);
  const doc = await (await fetch(`${origin}/v1/openapi.json`)).json();
  const operations = Object.values<any>(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  await page.waitForFunction((count) => document.querySelectorAll(".opblock").length === count, operations, { timeout: 20_000 });
  expect(await page.locator(".opblock-summary-path").first().textContent()).toBeTruthy();
  expect(await page.locator(".info").first().textContent()).toContain("The JSON API of renderd");
  expect(await page.locator('[data-path="/v1/renders"]').count()).toBeGreaterThan(0);
  expect(requested.filter((url) => !url.startsWith(origin) && !url.startsWith("data:"))).toEqual([]);
  expect(requested).toContain(`${origin}/v1/openapi.json`);
  expect(refused).toEqual([]);
  await page.close();
}, 60_000);
