/** rig: the console's browser tests drive the compiled binary (`renderd serve` on free ports, a temp DATA_DIR) with
 * headless Chromium. One server and one browser per test file. Run under the Chromium lock:
 * `flock /tmp/renderd-chromium.lock bun test --timeout 60000 test/console/…`. */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { freePort } from "../serve-process";
import { RECEIVER_ENV } from "../webhooks/receiver";

const root = resolve(import.meta.dir, "../..");
/** SCREENSHOTS is where every page is saved (git-ignored; CI keeps it as an artifact). */
export const SCREENSHOTS = join(root, ".tmp/console-screenshots");

/** ADMIN is the platform administrator of the first start. */
export const ADMIN = { email: "admin@renderd.local", password: "console-admin-pw" };
/** DESKTOP is the wide size of issue 11; the console must fit both without sideways scrolling. */
export const DESKTOP = { width: 1280, height: 800 };
/** PHONE is the narrow size of issue 11. */
export const PHONE = { width: 390, height: 844 };

async function waitForHealth(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (ok) return;
    if (Date.now() > until) throw new Error(`renderd did not answer ${url}/health in ${ms} ms`);
    await Bun.sleep(50);
  }
}

/** Rig is a running binary and browser for one test file. */
export interface Rig {
  url: string;
  browser: Browser;
  /** cli runs `renderd <args>` on the same DATA_DIR and answers its parsed --json output. */
  cli(...args: string[]): unknown;
  /** page opens a fresh browser context (its own cookies) at the given size. */
  page(viewport?: { width: number; height: number }): Promise<Page>;
  stop(): Promise<void>;
}

/** startRig builds the binary, starts it and a headless Chromium. */
export async function startRig(): Promise<Rig> {
  const work = mkdtempSync(join(tmpdir(), "renderd-console-"));
  const binary = join(work, "renderd");
  const build = Bun.spawnSync([process.execPath, "run", "scripts/build.ts", "cli/main.ts", binary], { cwd: root, stderr: "pipe", stdout: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  const [port, internalPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${port}`;
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    DATA_DIR: join(work, "data"),
    RENDERD_ADMIN_PASSWORD: ADMIN.password,
    PUBLIC_URL: url,
    RENDER_WORKERS: "1",
    LOG_LEVEL: "warn",
    // The webhook pages are tried against a local address that nobody answers.
    ...RECEIVER_ENV,
    // The destinations page delivers to an HTTP receiver on loopback.
    DESTINATION_ALLOW_PRIVATE: "1",
  };
  const server = Bun.spawn([binary, "serve", "--port", String(port), "--internal-port", String(internalPort)], { cwd: work, env, stdout: "ignore", stderr: "inherit" });
  let browser: Browser | undefined;
  try {
    await waitForHealth(url, 30_000);
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
  } catch (e) {
    server.kill("SIGTERM");
    await server.exited;
    rmSync(work, { recursive: true, force: true });
    throw e;
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  const open = browser;
  return {
    url,
    browser: open,
    cli(...args) {
      const run = Bun.spawnSync([binary, ...args, "--json"], { cwd: work, env, stdout: "pipe", stderr: "pipe" });
      if (run.exitCode !== 0) throw new Error(`renderd ${args.join(" ")}: ${run.stderr.toString()}`);
      return JSON.parse(run.stdout.toString());
    },
    async page(viewport = DESKTOP) {
      const context = await open.newContext({ viewport, baseURL: url, acceptDownloads: true });
      // copyCode reads a code editor's text through the clipboard, as a user copies it.
      await context.grantPermissions(["clipboard-read", "clipboard-write"]);
      return context.newPage();
    },
    async stop() {
      await open.close();
      server.kill("SIGTERM");
      await server.exited;
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** signIn signs in through the console's form and waits for the navigation to show. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/console/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Console" }).waitFor();
}

/** shoot saves a screenshot of the whole page under SCREENSHOTS. */
export async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** horizontalOverflow answers how many pixels the page is wider than its viewport (0 when nothing scrolls sideways). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** typeCode replaces a code editor's (CodeMirror's) whole text, as a user would by selecting all and pasting. */
export async function typeCode(page: Page, editor: Locator, text: string): Promise<void> {
  await editor.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.insertText(text);
}

/** copyCode answers a code editor's whole text, copied as a user would: CodeMirror draws only the lines in view. */
export async function copyCode(page: Page, editor: Locator): Promise<string> {
  await editor.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("ControlOrMeta+c");
  return page.evaluate(() => navigator.clipboard.readText());
}
