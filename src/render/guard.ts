/**
 * guard: the fence around a render page (DESIGN.md 4, docs/pool.md "Interception"). Its browser context runs no
 * JavaScript and is offline, and every request goes through one route handler: asset URLs of the job in flight are
 * fulfilled from its loader, everything else is aborted — never continued.
 */
import type { Browser, BrowserContext, Route } from "playwright-core";
import { parseAssetUrl } from "./assets";
import type { AssetBody, RenderJob } from "./print";
import type { PoolLog } from "./supervisor";
import type { ResourceWarning } from "../queue/warnings";
import { warningFor, type WarningList } from "./warnings";

/** GuardedPage is what the guard reads and marks on the page a request comes from. */
export interface GuardedPage {
  readonly id: number;
  /** The job whose assets are served; undefined between renders, so late requests are aborted. */
  job?: RenderJob;
  /** What the job in flight asked for and did not get. */
  warnings?: WarningList;
  /** The current Document has fetched something another job could be served from its caches (pages.ts reset). */
  tainted: boolean;
}

/** guardedContext opens a browser context for one render page with every request routed through guard(). */
export async function guardedContext(browser: Browser, page: GuardedPage, log?: PoolLog): Promise<BrowserContext> {
  const context = await browser.newContext({
    javaScriptEnabled: false,
    serviceWorkers: "block",
    // Offline is a second fence: it also stops the sockets <link rel=preconnect> opens without any request.
    offline: true,
    acceptDownloads: false,
    bypassCSP: false,
  });
  try {
    await context.route("**/*", (route) => guard(page, route, log));
  } catch (e) {
    await context.close().catch(() => {});
    throw e;
  }
  return context;
}

/**
 * guard answers one request of a render page: asset URLs are fulfilled from the job in flight, every other request
 * is aborted. Navigations are aborted as "aborted", which leaves the document in place (other reasons replace it with
 * an error page).
 */
async function guard(page: GuardedPage, route: Route, log?: PoolLog): Promise<void> {
  const request = route.request();
  const job = page.job;
  const url = request.url();
  const asset = parseAssetUrl(url);
  // Only the job's own scope is served; with no scope, unscoped asset URLs are (and taint the Document).
  const served = !!job?.assets && asset !== null && asset.scope === job.assetScope && request.method() === "GET";
  if (!served || job.assetScope === undefined) page.tainted = true;
  // Only the render in flight learns what it did not get; the warm-up and late requests of an ended render do not.
  const warn = (reason: ResourceWarning["reason"]) => {
    if (job && page.job === job) page.warnings?.add(reason, url);
  };
  try {
    if (request.isNavigationRequest()) {
      warn("blocked");
      return await route.abort("aborted");
    }
    if (!served) {
      warn("blocked");
      return await route.abort("blockedbyclient");
    }
    let body: AssetBody | null;
    try {
      body = await job.assets!(url);
    } catch (e) {
      // The URL is logged without its scope, as warnings show it.
      log?.warn({ page: page.id, url: warningFor("asset_failed", url).url, error: (e as Error).message }, "asset loader failed");
      warn("asset_failed");
      return await route.abort("failed");
    }
    // The render may have ended (deadline) while the loader ran: its assets must not reach the next job.
    if (page.job !== job) return await route.abort("blockedbyclient");
    if (!body) {
      warn("asset_not_found");
      return await route.fulfill({ status: 404, body: "" });
    }
    await route.fulfill({
      status: 200,
      contentType: body.contentType,
      body: Buffer.from(body.body.buffer, body.body.byteOffset, body.body.byteLength),
      headers: { "cache-control": "no-store", "access-control-allow-origin": "*" },
    });
  } catch {
    // The page closed under the request: nothing to answer.
  }
}
