/**
 * cdp: a page's own CDP session, made on the server side of Playwright's in-process connection. A session made through
 * Playwright's client API (`context.newCDPSession`) carries every call and every event across the client objects, the
 * protocol validators (client and server side), a dispatcher, a `setImmediate` hop each way and a captured stack per
 * call; the same session made server-side goes from the call to Chromium's pipe with one JSON message. On 8 warm pages
 * the driving process's CPU per printed invoice fell from 2.3–2.7 to 1.7–2.0 ms, the server's at c8 by 1.0–1.6 ms
 * (docs/performance.md "The print path on Playwright's server side").
 *
 * This reaches past Playwright's public API: the client connection's `toImpl` (what Playwright's own tests use to
 * reach server objects) and the server context's `newCDPSession`. playwright-core is pinned to one version in
 * package.json; an upgrade that moves either fails here, with the message below, when the pool opens its first page,
 * and test/render/cdp.test.ts fails with it.
 */
import type { CDPSession, Page } from "playwright-core";

/** CdpSession is the part of Playwright's CDPSession renderd uses, typed by Chromium's protocol: the server-side session
 * answers `send(method, params)` and emits each event by its method's name, as the client's does (no `options`). */
export type CdpSession = Pick<CDPSession, "send" | "once">;

/** The server objects reached: a server context opens a session on a server page; its `_session` sends and emits. */
interface ServerContext {
  newCDPSession(page: unknown): Promise<{ _session?: CdpSession }>;
}

/** pageSession opens a CDP session of its own on `page` whose calls and events stay on Playwright's server side. */
export async function pageSession(page: Page): Promise<CdpSession> {
  const toImpl = (page as unknown as { _connection?: { toImpl?: (object: unknown) => unknown } })._connection?.toImpl;
  const context = typeof toImpl === "function" ? (toImpl(page.context()) as Partial<ServerContext> | undefined) : undefined;
  if (typeof context?.newCDPSession !== "function") throw changed("the in-process connection's toImpl or the server context's newCDPSession");
  const session = (await context.newCDPSession(toImpl!(page)))._session;
  if (typeof session?.send !== "function" || typeof session.once !== "function") throw changed("the server CDP session's _session");
  return session;
}

function changed(what: string): Error {
  return new Error(`playwright-core no longer has ${what}, which the render pool's print path uses (src/render/cdp.ts); install the version package.json pins.`);
}
