/** cdp: a page's own CDP session on Playwright's server side — renderd's print path sends nothing through Playwright's client. */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { pageSession } from "../../src/render/cdp";
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
    const session = await pageSession(page);
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
    await expect(pageSession(page)).rejects.toThrow("install the version package.json pins");
  });
});
