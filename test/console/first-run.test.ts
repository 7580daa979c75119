/** first-run: the console's rough edges of a first look, each kept fixed — the icon the browser asks for is there,
 * Overview and Usage say what each of their counts counts (and the figures match what they say), the charts show the
 * whole of today's bar, and the API keys table fits 1280 px with every button in view. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { ADMIN, DESKTOP, shoot, signIn, startRig, type Rig } from "./rig";

let rig: Rig;
let page: Page;
const failed: string[] = [];

beforeAll(async () => {
  rig = await startRig();
  const key = (rig.cli("keys", "create", "--workspace", "default", "--name", "first-run", "--scope", "render:create", "render:read") as { secret: string }).secret;
  // One real document and one test render, both ended today.
  for (const test of [false, true]) {
    const res = await fetch(`${rig.url}/v1/renders?wait=30`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ html: "<p>first run</p>", test }) });
    expect((await res.json()).status).toBe("succeeded");
  }
  page = await rig.page(DESKTOP);
  // Every answer of 400 or more, but the session probe of a browser not yet signed in.
  page.on("response", (r) => r.status() >= 400 && !(r.status() === 401 && r.url().endsWith("/v1/auth/me")) && failed.push(`${r.status()} ${r.url()}`));
  await signIn(page, ADMIN.email, ADMIN.password);
});
afterAll(() => rig?.stop());

test("the console names its icon and serves it, and /favicon.ico answers the same icon: no request fails", async () => {
  const html = await (await fetch(`${rig.url}/console/`)).text();
  const href = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/.exec(html)?.[1];
  expect(href).toMatch(/^\/favicon-\w+\.svg$/);
  for (const path of [href!, "/favicon.ico"]) {
    const icon = await fetch(`${rig.url}${path}`);
    expect({ path, status: icon.status, type: icon.headers.get("content-type") }).toEqual({ path, status: 200, type: "image/svg+xml" });
    expect(await icon.text()).toStartWith("<svg");
  }
  await page.goto("/console/");
  await page.getByRole("heading", { name: "Overview" }).waitFor();
  expect(failed).toEqual([]);
});

test("Overview's documents this month counts real documents and says so; Usage counts every render and says so", async () => {
  await page.goto("/console/");
  const meter = page.locator("article.meter", { hasText: "Documents this month" });
  await expect(meter.locator(".figure").textContent()).resolves.toMatch(/^1 of /);
  expect(await meter.textContent()).toContain("test renders and previews are not counted");
  expect(await page.getByText("Every render that succeeded, test renders included").count()).toBe(1);
  await page.goto("/console/usage");
  await page.getByText("renders succeeded (test renders included)").waitFor();
  expect(await page.locator("section p").first().textContent()).toMatch(/^2 renders succeeded \(test renders included\)/);
  expect(await page.getByText("the Overview's documents this month count real documents only").count()).toBe(1);
  await shoot(page, "first-run-usage");
  // Dates when nothing ended: the page says so instead of an empty chart and a table of headers only.
  await page.getByLabel("From").fill("2020-01-01");
  await page.getByLabel("To").fill("2020-01-31");
  await page.getByText("No render ended from 2020-01-01 to 2020-01-31: there is no day to show.").waitFor();
  expect(await page.locator("section table").count()).toBe(0);
  expect(await page.locator(".chart canvas").count()).toBe(0);
});

/** barColumns answers, for the chart's canvas, which pixel columns hold the bars' blue fill, and the canvas's width. */
async function barColumns(p: Page): Promise<{ columns: number[]; width: number }> {
  await p.locator(".chart canvas").waitFor();
  return p.evaluate(() => {
    const canvas = document.querySelector(".chart canvas") as HTMLCanvasElement;
    const { data, width, height } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
    const columns: number[] = [];
    for (let x = 0; x < width; x++)
      for (let y = 0; y < height; y++) {
        const i = (y * width + x) * 4;
        // The fill, rgba(26,115,232,0.35) over white: clearly bluer than it is red.
        if (data[i + 3]! > 0 && data[i + 2]! - data[i]! > 40) {
          columns.push(x);
          break;
        }
      }
    return { columns, width };
  });
}

test("the charts show the whole of today's bar: it ends before the plot's right edge, as wide as a bar of a whole day", async () => {
  for (const path of ["/console/", "/console/usage"]) {
    await page.goto(path);
    const { columns, width } = await barColumns(page);
    expect(columns.length).toBeGreaterThan(0);
    // Today's bar is the rightmost run of blue columns; the plot area ends a few pixels before the canvas does.
    const last = columns.at(-1)!;
    let first = last;
    while (columns.includes(first - 1)) first--;
    expect({ path, endsBeforeEdge: last < width - 3 }).toEqual({ path, endsBeforeEdge: true });
    // 30 days share the plot: a whole bar is 0.7 of a day's width (the bars' size), more than half a day.
    expect({ path, wholeBar: last - first + 1 > (0.5 * width) / 31 }).toEqual({ path, wholeBar: true });
  }
});

test("the API keys table fits 1280 px: no sideways scrolling inside its frame, every row's buttons in view", async () => {
  for (const name of ["a-key-with-a-long-name", "ops-dashboard"]) rig.cli("keys", "create", "--workspace", "default", "--name", name, "--scope", "render:create", "render:read", "usage:read", "audit:read", "template:read");
  await page.goto("/console/api-keys");
  await page.getByRole("button", { name: "Delete a-key-with-a-long-name" }).waitFor();
  const frame = await page.evaluate(() => {
    const wrap = document.querySelector(".table-wrap")!;
    return { scroll: wrap.scrollWidth, client: wrap.clientWidth };
  });
  expect(frame.scroll).toBeLessThanOrEqual(frame.client);
  for (const button of await page.locator("td.actions > button").all()) {
    const box = (await button.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(DESKTOP.width);
  }
  // The buttons say what they do in few words; their names say which key.
  expect(await page.getByRole("button", { name: "Revoke ops-dashboard" }).textContent()).toBe("Revoke");
  await shoot(page, "first-run-api-keys");
});
