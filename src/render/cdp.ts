/**
 * cdp: the CDP session the print path speaks on — Playwright's own session on the page, taken on the server side of its
 * in-process connection. A session made through Playwright's client API (`context.newCDPSession`) carried every call
 * and event across the client objects, the protocol validators (client and server side), a dispatcher, a `setImmediate`
 * hop each way and a captured stack per call; a second session opened on the server side (2026-11-29, night) left
 * those out but made Chromium send each of the page's events twice, once to it and once to Playwright's session. On
 * Playwright's own session, with the lifecycle events it does not need turned off, a print costs its driving process
 * ~0.3 ms less than on that second session, ~0.4 ms more than a bare CDP client on Chromium's pipe
 * (docs/performance.md "One session per page; the compilers' warm-up").
 *
 * This reaches past Playwright's public API: the client connection's `toImpl` (what Playwright's own tests use to
 * reach server objects) and the server page's main frame session. playwright-core is pinned to one version in
 * package.json; an upgrade that moves either fails here, with the message below, when the pool opens its first page,
 * and test/render/cdp.test.ts fails with it.
 */
import type { CDPSession, Page } from "playwright-core";

/** CdpSession is the part of Playwright's CDPSession renderd uses, typed by Chromium's protocol: the server-side session
 * answers `send(method, params)` and emits each event by its method's name, as the client's does (no `options`). */
export type CdpSession = Pick<CDPSession, "send" | "once">;

/** The server page: Playwright's CRPage keeps its main frame's CDP session in `_mainFrameSession._client`. */
interface ServerPage {
  delegate?: { _mainFrameSession?: { _client?: Partial<CdpSession> } };
}

/** pageSession answers Playwright's own CDP session on `page` (its main frame's, on the server side), which the print
 * path sends its calls on and takes its load events from. */
export function pageSession(page: Page): CdpSession {
  const toImpl = (page as unknown as { _connection?: { toImpl?: (object: unknown) => unknown } })._connection?.toImpl;
  const session = typeof toImpl === "function" ? (toImpl(page) as ServerPage | undefined)?.delegate?._mainFrameSession?._client : undefined;
  if (typeof session?.send !== "function" || typeof session.once !== "function") throw changed("the in-process connection's toImpl or the server page's main frame session (delegate._mainFrameSession._client)");
  return session as CdpSession;
}

/**
 * muteLifecycle stops Chromium sending the page's session the frame's lifecycle events (three per print:
 * DOMContentLoaded, load, and one after). Playwright reads them only to answer its waits for a load state — goto,
 * setContent, waitForLoadState — which a render page never uses: print.ts waits for the load event it caused. A page
 * muted so hangs in those Playwright calls: the pool's pages only.
 */
export async function muteLifecycle(page: Page): Promise<void> {
  await pageSession(page).send("Page.setLifecycleEventsEnabled", { enabled: false });
}

function changed(what: string): Error {
  return new Error(`playwright-core no longer has ${what}, which the render pool's print path uses (src/render/cdp.ts); install the version package.json pins.`);
}
