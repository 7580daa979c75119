/**
 * bench/print-path: what printing an invoice costs the process that drives Chromium, six ways, on 8 warm pages at
 * once, in alternating rounds — the CPU per document of this process alone (Chromium's own processes are not counted):
 *
 *   (a) Playwright's page.setContent + page.pdf(): the client of the bench's pool floor (bench/floor.ts);
 *   (b) renderd's print path (src/render/print.ts): Playwright's own session on the page, taken on its server side, the
 *       page's lifecycle events turned off as on the pool's pages (cdp.ts);
 *   (b′) the same with the lifecycle events on;
 *   (c) a bare CDP client on Chromium's --remote-debugging-pipe, as Playwright itself starts it, with nothing between
 *       the pipe and the calls: what renderd would spend if its pool spoke to Chromium without Playwright;
 *   (d) the calls of (b) on a CDP session of Playwright's API (context.newCDPSession): renderd's print path until
 *       2026-11-29, each call and event through Playwright's client;
 *   (e) the calls of (b) on a second session of their own, opened on Playwright's server side (renderd's print path on
 *       2026-11-29 until the morning), lifecycle events off as in (b): Chromium sends each page event to both sessions.
 *
 * Issue 32's CPU goal compares renderd's CPU per invoice at concurrency 8 with (a); docs/performance.md "The print
 * path without Playwright", "The print path on Playwright's server side" and "One session per page; the compilers'
 * warm-up" have the figures.
 *
 *   flock /tmp/renderd-chromium.lock node_modules/.bin/bun bench/print-path.ts [--docs 400] [--rounds 3]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import { chromiumArgs } from "../src/render/browser";
import { muteLifecycle } from "../src/render/cdp";
import { print, printParameters } from "../src/render/print";
import { CHROMIUM, INVOICE_HTML, launchBrowser, openPages, PDF_OPTIONS } from "./floor";
import { median } from "./report";

const { values } = parseArgs({ options: { docs: { type: "string", default: "400" }, rounds: { type: "string", default: "3" } } });
const DOCS = Number(values.docs);
const PAGES = 8;

/** A bare CDP connection over the pipe Chromium opens on its fds 3 (commands in) and 4 (answers and events out), each
 * message JSON ended by a NUL. */
class PipeClient {
  private next = 0;
  private readonly answers = new Map<number, { resolve: (result: any) => void; reject: (e: Error) => void }>();
  private readonly waiters = new Map<string, (params: any) => void>();
  private readonly profile = mkdtempSync(join(tmpdir(), "renderd-bench-pipe-"));
  private readonly chromium = spawn(CHROMIUM, [...chromiumArgs({ asRoot: process.getuid?.() === 0 }), "--headless", "--remote-debugging-pipe", `--user-data-dir=${this.profile}`, "about:blank"], {
    stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"],
  });

  constructor() {
    let pending = "";
    (this.chromium.stdio[4] as NodeJS.ReadableStream).on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      for (let end = pending.indexOf("\0"); end >= 0; end = pending.indexOf("\0")) {
        const message = JSON.parse(pending.slice(0, end));
        pending = pending.slice(end + 1);
        if (message.id === undefined) this.waiters.get(`${message.sessionId}:${message.method}`)?.(message.params);
        else {
          const answer = this.answers.get(message.id)!;
          this.answers.delete(message.id);
          if (message.error) answer.reject(new Error(`${message.error.message}`));
          else answer.resolve(message.result);
        }
      }
    });
  }

  send(method: string, params: object = {}, sessionId?: string): Promise<any> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.answers.set(id, { resolve, reject });
      (this.chromium.stdio[3] as NodeJS.WritableStream).write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
    });
  }

  /** once resolves on the session's next `method` event. */
  once(sessionId: string, method: string): Promise<any> {
    const key = `${sessionId}:${method}`;
    return new Promise((resolve) => this.waiters.set(key, (params) => (this.waiters.delete(key), resolve(params))));
  }

  /** page opens a page in a context of its own, scripts off, as the pool's are. */
  async page(): Promise<{ session: string; frameId: string }> {
    const { browserContextId } = await this.send("Target.createBrowserContext", { disposeOnDetach: true });
    const { targetId } = await this.send("Target.createTarget", { url: "about:blank", browserContextId });
    const { sessionId } = await this.send("Target.attachToTarget", { targetId, flatten: true });
    await this.send("Page.enable", {}, sessionId);
    await this.send("Emulation.setScriptExecutionDisabled", { value: true }, sessionId);
    const { frameTree } = await this.send("Page.getFrameTree", {}, sessionId);
    return { session: sessionId, frameId: frameTree.frame.id };
  }

  close(): void {
    this.chromium.kill();
    rmSync(this.profile, { recursive: true, force: true });
  }
}

/** onPages prints `docs` invoices on the pages, one caller per page, and answers the docs/s and this process's CPU ms
 * per document. */
async function onPages<P>(pages: P[], docs: number, one: (page: P) => Promise<unknown>): Promise<{ docsPerS: number; cpuMs: number }> {
  const before = process.cpuUsage();
  const start = performance.now();
  let left = docs;
  await Promise.all(pages.map(async (page) => {
    while (left-- > 0) await one(page);
  }));
  const used = process.cpuUsage(before);
  return { docsPerS: (docs / (performance.now() - start)) * 1000, cpuMs: (used.user + used.system) / 1000 / docs };
}

const browser = await launchBrowser();
const floorPages = await openPages(browser, PAGES);
const renderdPages = await openPages(browser, PAGES);
for (const page of renderdPages.pages) await muteLifecycle(page);
const loudPages = await openPages(browser, PAGES);
const apiPages = await openPages(browser, PAGES);
const pipe = new PipeClient();
const pipePages = await Promise.all(Array.from({ length: PAGES }, () => pipe.page()));
// What renderd's print() asks of printToPDF for a job that sets nothing (A4), at the server's default RENDER_MAX_PAGES.
const MAX_PAGES = 500;
const PRINT = printParameters({}, MAX_PAGES);

/** A page's session as (c), (d) and (e) call it: untyped sends, and the next load event. */
interface Printer {
  frameId: string;
  send: (method: string, params: object) => Promise<any>;
  loaded: () => Promise<unknown>;
}
const pipePrinters: Printer[] = pipePages.map(({ session, frameId }) => ({
  frameId,
  send: (method, params) => pipe.send(method, params, session),
  loaded: () => pipe.once(session, "Page.loadEventFired"),
}));

/** A Playwright CDP session, of its client API or of its server side: both send and emit by the method's name. */
interface PlaywrightSession {
  send(method: string, params?: object): Promise<any>;
  once(event: string, listener: (params: unknown) => void): unknown;
}

/** printerOn turns the Page domain on in a second session of a page and answers it as a Printer. */
async function printerOn(session: PlaywrightSession): Promise<Printer> {
  await session.send("Page.enable");
  const { frameTree } = await session.send("Page.getFrameTree");
  return {
    frameId: frameTree.frame.id,
    send: (method, params) => session.send(method, params),
    loaded: () => new Promise((resolve) => session.once("Page.loadEventFired", resolve)),
  };
}
const secondPages = await openPages(browser, PAGES);
const secondPrinters = await Promise.all(secondPages.pages.map(async (page) => {
  await muteLifecycle(page);
  const toImpl = (page as unknown as { _connection: { toImpl: (object: unknown) => any } })._connection.toImpl;
  return printerOn((await toImpl(page.context()).newCDPSession(toImpl(page)))._session);
}));
const apiPrinters = await Promise.all(apiPages.pages.map(async (page) => printerOn((await page.context().newCDPSession(page)) as unknown as PlaywrightSession)));

/** printWith loads the invoice and prints it with renderd's calls (print.ts) over a page's session. */
async function printWith({ frameId, send, loaded: next }: Printer): Promise<Buffer> {
  const loaded = next();
  await send("Page.setDocumentContent", { frameId, html: INVOICE_HTML });
  await loaded;
  const { data } = await send("Page.printToPDF", PRINT);
  return Buffer.from(data, "base64");
}

/** printInvoice prints the invoice with renderd's own print(). */
const printInvoice = (page: Page) => print(page, { html: INVOICE_HTML }, MAX_PAGES);

const paths: [string, (docs: number) => Promise<{ docsPerS: number; cpuMs: number }>][] = [
  ["(a) Playwright setContent + pdf()", (docs) => onPages(floorPages.pages, docs, async (page: Page) => {
    await page.setContent(INVOICE_HTML, { waitUntil: "load" });
    await page.pdf(PDF_OPTIONS);
  })],
  ["(b) renderd: Playwright's session, server side", (docs) => onPages(renderdPages.pages, docs, printInvoice)],
  ["(b′) the same, lifecycle events not muted", (docs) => onPages(loudPages.pages, docs, printInvoice)],
  ["(c) bare CDP on the pipe", (docs) => onPages(pipePrinters, docs, printWith)],
  ["(d) renderd's calls via Playwright's API", (docs) => onPages(apiPrinters, docs, printWith)],
  ["(e) a second session, server side", (docs) => onPages(secondPrinters, docs, printWith)],
];

try {
  for (const [, path] of paths) await path(PAGES * 8);
  const seen = new Map<string, number[]>();
  for (let round = 0; round < Number(values.rounds); round++)
    for (const [name, path] of round % 2 ? [...paths].reverse() : paths) {
      const { docsPerS, cpuMs } = await path(DOCS);
      seen.set(name, [...(seen.get(name) ?? []), cpuMs]);
      console.log(`round ${round + 1}  ${name.padEnd(42)} ${docsPerS.toFixed(1).padStart(5)} docs/s  ${cpuMs.toFixed(2)} ms CPU/doc`);
    }
  console.log("\nmedian CPU per invoice of the driving process:");
  for (const [name, ms] of seen) console.log(`  ${name.padEnd(42)} ${median(ms).toFixed(2)} ms`);
} finally {
  await floorPages.close();
  await renderdPages.close();
  await loudPages.close();
  await secondPages.close();
  await apiPages.close();
  await browser.close();
  pipe.close();
}
