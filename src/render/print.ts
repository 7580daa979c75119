/** print: what a render job is, what the pool answers for it, and how a warm page prints it (page.pdf with the pool's options). */
import type { Page } from "playwright-core";
import { ApiError } from "../errors";
import { checkLayout } from "./layout";
import type { RenderWarning } from "./warnings";

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
  warnings: RenderWarning[];
}

/** print loads the document, checks that it can be printed whole, and prints it; the caller races it against the deadline. */
export async function print(page: Page, job: RenderJob, maxPages: number): Promise<Buffer> {
  // Timeouts are the pool's (one deadline for the whole render), so playwright's own are off.
  await page.setContent(job.html, { waitUntil: "load", timeout: 0 });
  await checkLayout(page, job.html);
  if (job.pdf?.lang) await page.evaluate((lang) => document.documentElement.setAttribute("lang", lang), job.pdf.lang);
  return page.pdf(pdfOptions(job.pdf, maxPages));
}

/** pdfOptions maps a job's settings onto page.pdf: background on, untagged and without outline unless asked, and a page
 * range one past the limit. */
function pdfOptions(settings: PdfSettings = {}, maxPages: number): Parameters<Page["pdf"]>[0] {
  const sized = settings.format !== undefined || settings.width !== undefined || settings.height !== undefined;
  return {
    format: settings.format ?? (sized ? undefined : "A4"),
    width: settings.width,
    height: settings.height,
    landscape: settings.landscape,
    margin: settings.margin,
    preferCSSPageSize: settings.preferCSSPageSize,
    scale: settings.scale,
    displayHeaderFooter: settings.displayHeaderFooter,
    headerTemplate: settings.headerTemplate,
    footerTemplate: settings.footerTemplate,
    printBackground: settings.printBackground ?? true,
    tagged: settings.tagged ?? false,
    outline: settings.outline ?? false,
    pageRanges: `1-${maxPages + 1}`,
  };
}

/** blockedError is the failure of a render with failOnBlockedResources, naming the first thing it did not get. */
export function blockedError(first: RenderWarning): ApiError {
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
