/** cdp: the print path speaks on Playwright's own session on the page, on its server side — nothing through Playwright's
 * client, no second session — and that session takes in no lifecycle events on the pool's pages. */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { muteLifecycle, pageSession } from "../../src/render/cdp";
import { print } from "../../src/render/print";
import { launchBrowser, RENDER_CONTEXT } from "./fixtures";

setDefaultTimeout(30_000);

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser.close();
});

/** clientTraffic counts the messages Playwright's in-process client sends to its server and receives from it while `run` runs. */
async function clientTraffic(page: Page, run: () => Promise<unknown>): Promise<{ sent: string[]; received: string[] }> {
  const connection = (page as unknown as { _connection: { onmessage: (m: { method: string }) => void; dispatch: (m: { method?: string }) => void } })._connection;
  const { onmessage, dispatch } = connection;
  const sent: string[] = [];
  const received: string[] = [];
  connection.onmessage = (message) => (sent.push(message.method), onmessage.call(connection, message));
  connection.dispatch = (message) => (received.push(message.method ?? "answer"), dispatch.call(connection, message));
  try {
    await run();
    // Messages are handed over on the next turn (setImmediate): let those of the print arrive.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    connection.onmessage = onmessage;
    connection.dispatch = dispatch;
  }
  return { sent, received };
}

describe("the print path's CDP session", () => {
  test("a print sends no call through Playwright's client, and none of its session's answers or events come back through it", async () => {
    const page = await (await browser.newContext(RENDER_CONTEXT)).newPage();
    const html = "<!DOCTYPE html><p>invoice</p>";
    await print(page, { html }, 10);
    const { sent, received } = await clientTraffic(page, () => print(page, { html }, 10));
    expect(sent).toEqual([]);
    expect(received.filter((method) => method === "answer" || method === "event")).toEqual([]);
    // Through a session of Playwright's client API the same print sends its two calls (the comparison that makes the check mean something).
    const client = await page.context().newCDPSession(page);
    const through = await clientTraffic(page, () => client.send("Page.printToPDF", {}));
    expect(through.sent).toEqual(["send"]);
    expect(through.received).toContain("answer");
    await page.context().close();
  });

  test("a call in flight fails when its page closes, instead of waiting for ever", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const session = pageSession(page);
    const outcome = session.send("Runtime.evaluate", { expression: "new Promise(() => {})", awaitPromise: true }).then(
      () => "answered",
      (e: Error) => e.message,
    );
    await Bun.sleep(50);
    await context.close();
    expect(await outcome).toContain("session closed");
  });

  test("a Playwright without the internals it uses is named, with what to do", async () => {
    const page = { _connection: {}, context: () => ({}) } as unknown as Page;
    expect(() => pageSession(page)).toThrow("install the version package.json pins");
    await expect(muteLifecycle(page)).rejects.toThrow("install the version package.json pins");
  });
});

/** lifecycleEvents counts the lifecycle events Playwright's own session on `page` takes in while `run` runs. */
async function lifecycleEvents(page: Page, run: () => Promise<unknown>): Promise<number> {
  const own = pageSession(page) as unknown as { on: (e: string, f: () => void) => void; off: (e: string, f: () => void) => void };
  let seen = 0;
  const count = () => void seen++;
  own.on("Page.lifecycleEvent", count);
  try {
    await run();
  } finally {
    own.off("Page.lifecycleEvent", count);
  }
  return seen;
}

/** pipeEvents lists the events Chromium's pipe brings Playwright's connection while `run` runs. */
async function pipeEvents(page: Page, run: () => Promise<unknown>): Promise<string[]> {
  const session = pageSession(page) as unknown as { _connection: { _transport: { onmessage: (m: { method?: string }) => void } } };
  const transport = session._connection._transport;
  const { onmessage } = transport;
  const methods: string[] = [];
  transport.onmessage = (message) => (message.method && methods.push(message.method), onmessage(message));
  try {
    await run();
  } finally {
    transport.onmessage = onmessage;
  }
  return methods;
}

describe("Playwright's own session on a render page", () => {
  test("a print's load event comes over the pipe once: the print speaks on Playwright's session, not a second one", async () => {
    const context = await browser.newContext(RENDER_CONTEXT);
    const page = await context.newPage();
    const html = "<!DOCTYPE html><p>invoice</p>";
    await print(page, { html }, 10);
    expect((await pipeEvents(page, () => print(page, { html }, 10))).filter((method) => method === "Page.loadEventFired")).toEqual(["Page.loadEventFired"]);
    // A second session with its Page domain on gets every event again.
    const second = await context.newCDPSession(page);
    await second.send("Page.enable");
    expect((await pipeEvents(page, () => print(page, { html }, 10))).filter((method) => method === "Page.loadEventFired")).toHaveLength(2);
    await context.close();
  });

  test("a muted page's prints send Playwright's session no lifecycle events; they still print, and a page not muted gets them", async () => {
    const html = "<!DOCTYPE html><p>invoice</p>";
    const context = await browser.newContext(RENDER_CONTEXT);
    const [muted, loud] = [await context.newPage(), await context.newPage()];
    await muteLifecycle(muted);
    for (const page of [muted, loud]) await print(page, { html }, 10);
    let pdf: Buffer | undefined;
    expect(await lifecycleEvents(muted, async () => (pdf = await print(muted, { html }, 10)))).toBe(0);
    expect(pdf?.subarray(0, 5).toString()).toBe("%PDF-");
    expect(await lifecycleEvents(loud, () => print(loud, { html }, 10))).toBeGreaterThan(0);
    await context.close();
  });
});
