/** print: what a render job is, what the pool answers for it, and how a warm page prints it (Chromium's printToPDF with
 * the pool's options). */
import type { Page } from "playwright-core";
import { ApiError } from "../errors";
import { pageSession, type CdpSession } from "./cdp";
import { checkLayout } from "./layout";
import type { ResourceWarning } from "../queue/warnings";

/** PdfSettings are the page.pdf options a job may set; the rest (page ranges) is the pool's. */
export interface PdfSettings {
  /** Paper format (A4, Letter…); A4 when neither it nor width and height are given. */
  format?: string;
  width?: string | number;
  height?: string | number;
  landscape?: boolean;
  margin?: { top?: string | number; right?: string | number; bottom?: string | number; left?: string | number };
  /** Let the document's CSS `@page` size win (the compile stage writes one). */
  preferCSSPageSize?: boolean;
  scale?: number;
  displayHeaderFooter?: boolean;
  headerTemplate?: string;
  footerTemplate?: string;
  /** Default true. */
  printBackground?: boolean;
  /** Default false: untagged PDFs are faster to print. */
  tagged?: boolean;
  /** Default false: a bookmark outline from the document's headings. */
  outline?: boolean;
  /** The document's language (`pdf.metadata.language`), set as its `<html lang>` before printing: the tagged PDF's /Lang. */
  lang?: string;
}

/** AssetBody is what an asset loader answers: the bytes and their media type. */
export interface AssetBody {
  body: Uint8Array;
  contentType: string;
}

/** AssetLoader answers the asset an asset URL names (see parseAssetUrl), or null when there is none. */
export type AssetLoader = (url: string) => Promise<AssetBody | null>;

/** RenderJob is one document to print. Limits given here may only lower the pool's. */
export interface RenderJob {
  html: string;
  pdf?: PdfSettings;
  assets?: AssetLoader;
  /**
   * The scope this job's asset URLs were made with (`assetUrl(id, scope)`, a fresh newAssetScope() per render).
   * Only asset URLs of this scope are served. A page whose Document fetched nothing but this scope's assets is reused
   * as it is, at once; any other request (unscoped asset URLs included) makes the pool move the page to a new Document
   * after the render (~25 ms, about twice the CPU of a small render): see PageSlots.reset (pages.ts).
   */
  assetScope?: string;
  /** Milliseconds from the call to render() — waiting for a page included — to a finished PDF. */
  deadlineMs?: number;
  maxPages?: number;
  maxOutputBytes?: number;
  /** Fail the render (RENDER_FAILED, naming the first) when the page asked for anything it did not get. */
  failOnBlockedResources?: boolean;
}

/** RenderOutput is a printed PDF, its page count, its size, the milliseconds render() took and what the page asked for
 * and did not get. */
export interface RenderOutput {
  pdf: Uint8Array;
  pages: number;
  bytes: number;
  ms: number;
  warnings: ResourceWarning[];
}

/**
 * print loads the document, checks that it can be printed whole, and prints it; the caller races it against the deadline.
 * The check comes first, although sent after printToPDF it would overlap the print: the print of a paragraph past the
 * limit (one line millions of pixels wide) went on in Chromium's print compositor after its page was closed, ~12 s of a
 * core per refusal (docs/performance.md "Sixth pass").
 */
export async function print(page: Page, job: RenderJob, maxPages: number): Promise<Buffer> {
  const printer = await printerOf(page);
  await load(printer, job.html);
  await checkLayout(page, job.html);
  if (job.pdf?.lang) await page.evaluate((lang) => document.documentElement.setAttribute("lang", lang), job.pdf.lang);
  const { data } = await printer.session.send("Page.printToPDF", printParameters(job.pdf, maxPages));
  return Buffer.from(data, "base64");
}

/** Printer is the page's CDP session (Playwright's own, taken on its server side: cdp.ts) and the page's main frame.
 * Playwright's page.setContent and page.pdf() cost the server's CPU for what one call each does here: setContent
 * evaluates document.open/write/close in a utility world and tracks the frame's lifecycle through Playwright's layers
 * (~0.8 ms per render), and page.pdf() asks for a stream it reads back with two more calls (~0.3 ms); the timeouts are
 * the pool's deadline either way. */
interface Printer {
  session: CdpSession;
  frameId: string;
}

const printers = new WeakMap<Page, Promise<Printer>>();

function printerOf(page: Page): Promise<Printer> {
  let printer = printers.get(page);
  if (!printer) {
    printer = (async () => {
      // Playwright enabled the Page domain on its session when it opened the page.
      const session = pageSession(page);
      const { frameTree } = await session.send("Page.getFrameTree");
      return { session, frameId: frameTree.frame.id };
    })();
    printers.set(page, printer);
  }
  return printer;
}

/** load replaces the document's content with `html` (document.open/write/close on the same Document, as setContent
 * does) and resolves on its load event: every stylesheet, font and image it asked for has arrived or failed. */
function load({ session, frameId }: Printer, html: string): Promise<void> {
  return untilLoaded(session, () => session.send("Page.setDocumentContent", { frameId, html }));
}

/** blank moves the page to a new, empty Document (about:blank) and resolves on its load event; a navigation Chromium
 * refused throws at once (it would fire no load event), so the caller replaces the page instead of waiting it out. */
export async function blank(page: Page): Promise<void> {
  const { session, frameId } = await printerOf(page);
  await untilLoaded(session, async () => {
    const { errorText } = await session.send("Page.navigate", { frameId, url: "about:blank" });
    if (errorText) throw new Error(`the move to a new Document failed: ${errorText}`);
  });
}

/**
 * untilLoaded starts a load on the printer's session and resolves on the session's next load event. Every load of a
 * render page goes through here, so each load event is awaited by the call that caused it. A load made through
 * Playwright (goto, setContent) fired its event on the session too, at times after Playwright had resolved; that stale
 * event ended the next job's wait before its stylesheet's font was asked for, and the text printed invisible
 * (test/render/pool.test.ts, "after a page moved to a new Document or was replaced"). The pool never loads a page through
 * Playwright.
 */
async function untilLoaded(session: CdpSession, start: () => Promise<unknown>): Promise<void> {
  const loaded = new Promise<void>((resolve) => session.once("Page.loadEventFired", () => resolve()));
  await start();
  await loaded;
}

// Playwright's paper sizes and units (crPdf.ts), so that a job prints exactly as it did through page.pdf().
const PAPER_INCHES: Record<string, { width: number; height: number }> = {
  letter: { width: 8.5, height: 11 },
  legal: { width: 8.5, height: 14 },
  tabloid: { width: 11, height: 17 },
  ledger: { width: 17, height: 11 },
  a0: { width: 33.1, height: 46.8 },
  a1: { width: 23.4, height: 33.1 },
  a2: { width: 16.54, height: 23.4 },
  a3: { width: 11.7, height: 16.54 },
  a4: { width: 8.27, height: 11.7 },
  a5: { width: 5.83, height: 8.27 },
  a6: { width: 4.13, height: 5.83 },
};
const UNIT_PX: Record<string, number> = { px: 1, in: 96, cm: 37.8, mm: 3.78 };

/** inches reads a length as page.pdf() does: a number is px, a string ends in px, in, cm or mm (px without a unit). */
function inches(length: string | number | undefined): number | undefined {
  if (length === undefined) return undefined;
  const text = String(length);
  const unit = text.slice(-2).toLowerCase();
  const known = Object.hasOwn(UNIT_PX, unit);
  const value = Number(known ? text.slice(0, -2) : text);
  if (Number.isNaN(value)) throw new Error(`Failed to parse parameter value: ${text}`);
  return (value * UNIT_PX[known ? unit : "px"]!) / 96;
}

/** printParameters maps a job's settings onto printToPDF as page.pdf() would: A4 unless sized, background on, untagged
 * and without outline unless asked, and a page range one past the limit. */
export function printParameters(settings: PdfSettings = {}, maxPages: number) {
  const sized = settings.format !== undefined || settings.width !== undefined || settings.height !== undefined;
  const format = sized ? settings.format : "A4";
  const paper = format === undefined ? undefined : PAPER_INCHES[format.toLowerCase()];
  if (format !== undefined && !paper) throw new Error(`Unknown paper format: ${format}`);
  const margin = settings.margin ?? {};
  return {
    transferMode: "ReturnAsBase64" as const,
    landscape: settings.landscape ?? false,
    displayHeaderFooter: settings.displayHeaderFooter ?? false,
    headerTemplate: settings.headerTemplate ?? "",
    footerTemplate: settings.footerTemplate ?? "",
    printBackground: settings.printBackground ?? true,
    scale: settings.scale ?? 1,
    paperWidth: paper?.width ?? (inches(settings.width) || 8.5),
    paperHeight: paper?.height ?? (inches(settings.height) || 11),
    marginTop: inches(margin.top) || 0,
    marginBottom: inches(margin.bottom) || 0,
    marginLeft: inches(margin.left) || 0,
    marginRight: inches(margin.right) || 0,
    pageRanges: `1-${maxPages + 1}`,
    preferCSSPageSize: settings.preferCSSPageSize ?? false,
    generateTaggedPDF: settings.tagged ?? false,
    generateDocumentOutline: settings.outline ?? false,
  };
}

/** blockedError is the failure of a render with failOnBlockedResources, naming the first thing it did not get. */
export function blockedError(first: ResourceWarning): ApiError {
  const why = {
    blocked: "renders load nothing but the workspace's own assets",
    asset_not_found: "no such uploaded asset",
    asset_failed: "the asset could not be read",
  }[first.reason];
  return new ApiError(
    "RENDER_FAILED",
    `The page asked for ${first.url} and did not get it (${why}); failOnBlockedResources is true. ` +
      "Upload what it needs as an asset, inline it as a data: URL, or render without failOnBlockedResources to get warnings instead.",
  );
}
