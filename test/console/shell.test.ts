/** The console's frame: served from the binary with its security headers, sign-in (wrong password then right), session
 * expiry back to where the user was, and every page at 1280×800 and 390×844 without sideways scrolling. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { ADMIN, DESKTOP, horizontalOverflow, PHONE, shoot, signIn, startRig, type Rig } from "./rig";

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(() => rig?.stop());

/** watch collects what the page's console and network say went wrong (CSP violations, failed or foreign requests). */
function watch(page: Page, origin: string): string[] {
  const problems: string[] = [];
  page.on("console", (m) => m.type() === "error" && !m.text().includes("status of 4") && problems.push(m.text()));
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("request", (r) => !r.url().startsWith(origin) && !r.url().startsWith("blob:") && !r.url().startsWith("data:") && !r.url().startsWith("about:") && problems.push(`request to ${r.url()}`));
  return problems;
}

describe("serving", () => {
  test("GET / redirects to /console/, and the console answers with its security headers", async () => {
    const root = await fetch(`${rig.url}/`, { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/console/");

    const page = await fetch(`${rig.url}/console/renders/abc`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await page.text();
    // No inline script: every script is a file of our own, at the root.
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    const chunk = /src="(\/chunk-[a-z0-9]+\.js)"/.exec(html)![1];
    const js = await fetch(`${rig.url}${chunk}`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-security-policy")).toBe(csp);
    expect((await fetch(`${rig.url}${chunk}.map`)).status).toBe(404);
    // The API is untouched by the console's routes.
    expect((await fetch(`${rig.url}/v1/templates`)).status).toBe(401);
  });
});

describe("sign-in", () => {
  test("a wrong password shows a clear message; the right one signs in", async () => {
    const page = await rig.page();
    const problems = watch(page, rig.url);
    await page.goto("/");
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain("Wrong e-mail or password");
    await shoot(page, "sign-in-wrong-password");
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    expect(page.url()).toBe(`${rig.url}/console/`);
    expect(await page.evaluate(() => JSON.stringify(localStorage))).toBe("{}");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("session expiry sends the user to sign in, and then back to where they were", async () => {
    const page = await rig.page();
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.getByRole("link", { name: "Usage" }).click();
    await page.getByRole("heading", { name: "Usage" }).waitFor();
    await page.context().clearCookies();
    await page.getByRole("link", { name: "Renders" }).click();
    await page.getByText("Your session has ended").waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/sign-in");
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Renders" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/renders");
    await page.context().close();
  });
});

describe("every page", () => {
  const pages = [
    ["Overview", "overview"],
    ["Templates", "templates"],
    ["Renders", "renders"],
    ["Assets", "assets"],
    ["API keys", "api-keys"],
    ["Webhooks", "webhooks"],
    ["Destinations", "destinations"],
    ["Audit log", "audit-log"],
    ["Usage", "usage"],
    ["Limits", "limits"],
    ["Members", "members"],
    ["Platform", "platform"],
  ] as const;

  for (const [size, viewport] of [["desktop", DESKTOP], ["phone", PHONE]] as const) {
    test(`at ${viewport.width}×${viewport.height} each page has one <main>, its heading, and no sideways scrolling`, async () => {
      const page = await rig.page(viewport);
      const problems = watch(page, rig.url);
      await signIn(page, ADMIN.email, ADMIN.password);
      for (const [link, name] of pages) {
        await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: link, exact: true }).click();
        await page.getByRole("heading", { level: 1, name: link === "Audit log" ? "Audit log" : link }).waitFor();
        await page.waitForFunction(() => !document.querySelector("[aria-busy=true]"));
        expect(await page.locator("main").count()).toBe(1);
        expect({ page: link, overflow: await horizontalOverflow(page) }).toEqual({ page: link, overflow: 0 });
        await shoot(page, `${name}-${size}`);
      }
      await page.getByText("Account").click();
      await page.getByRole("link", { name: "Change password" }).click();
      await page.getByRole("heading", { name: "Change password" }).waitFor();
      expect(await horizontalOverflow(page)).toBe(0);
      await shoot(page, `change-password-${size}`);
      // Members and the export are built on another branch; until they are merged their calls answer 404 here.
      expect(problems.filter((p) => !p.includes("404"))).toEqual([]);
      await page.context().close();
    });
  }
});

// Last in this file: it uses up the sign-in allowance of this address for a minute (spec 8.3.2: 10 a minute).
describe("sign-in rate limit", () => {
  test("too many attempts show a clear message instead of 'wrong password'", async () => {
    const page = await rig.page();
    await page.goto("/console/sign-in");
    await page.getByLabel("Email").fill(ADMIN.email);
    const alert = page.getByRole("alert");
    // The allowance counts per minute of the server's real clock. 21 attempts within a few seconds cross at most one
    // minute's end, so one of the two minutes gets its 11th attempt, whatever the earlier sign-ins of this file used.
    let refused = false;
    for (let attempt = 1; attempt <= 21 && !refused; attempt++) {
      await page.getByLabel("Password").fill(`guess-${attempt}`);
      const answered = page.waitForResponse((r) => r.url().endsWith("/v1/auth/sign-in"));
      await page.getByRole("button", { name: "Sign in" }).click();
      refused = (await answered).status() === 429;
    }
    expect(refused).toBe(true);
    await alert.filter({ hasText: "Too many sign-in attempts" }).waitFor();
    await shoot(page, "sign-in-rate-limited");
    await page.context().close();
  });
});
