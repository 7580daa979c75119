/** http/console: the web console (console/, a React SPA through Bun's HTML import) served under /console/ with the
 * security headers of issue 11; `GET /` redirects there. */
import page from "../../console/index.html";
import { requestPath } from "./request-target";

/** ConsoleFile is one file of the built console: its bytes and its own headers (content type, etag). */
interface ConsoleFile {
  body: Blob;
  headers: Record<string, string>;
}

interface ConsoleBundle {
  index: ConsoleFile;
  /** The hashed chunks (`/chunk-….js`, `.css`, fonts), which the HTML and the JS name at the root. */
  assets: Map<string, ConsoleFile>;
}

// Inline styles are allowed for the code editor's and chart's styles; scripts come only from our own chunks (pdf.js
// included: it runs on the page's thread, no worker script, no eval), the page talks only to our API and frames
// nothing (the template preview is the PDF drawn on canvases).
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join("; ");

/** SECURITY_HEADERS go on every console response. */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CSP,
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

// Source maps stay out: they are not needed to run the console and would publish the sources.
const SERVED = /\.(js|css|woff2?|ttf|svg|png)$/;

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** loadBundle reads the console built into the executable, or builds it from source when run with `bun`. */
async function loadBundle(): Promise<ConsoleBundle> {
  const assets = new Map<string, ConsoleFile>();
  let index: ConsoleFile | undefined;
  if (page.files) {
    for (const f of page.files) {
      const file = { body: Bun.file(f.path), headers: { ...f.headers } };
      if (f.loader === "html") index = file;
      else if (SERVED.test(f.path)) assets.set(`/${baseName(f.path)}`, file);
    }
  } else {
    const built = await Bun.build({ entrypoints: [page.index], splitting: true, minify: true, throw: true });
    for (const out of built.outputs) {
      const file = { body: out as Blob, headers: { "content-type": out.type, etag: `"${out.hash}"` } };
      if (out.path.endsWith(".html")) index = file;
      else if (SERVED.test(out.path)) assets.set(`/${baseName(out.path)}`, file);
    }
  }
  if (!index) throw new Error("console: the build has no index.html");
  return { index, assets };
}

function respond(file: ConsoleFile, cache: string): Response {
  return new Response(file.body, { headers: { ...file.headers, ...SECURITY_HEADERS, "cache-control": cache } });
}

/** consoleHandler answers the console's pages and files, and null for every other path (the API's). */
export function consoleHandler(): (request: Request) => Promise<Response | null> {
  // Built on the first console request, so that a server started only for the API (tests, `bun`) never builds it.
  let bundle: Promise<ConsoleBundle> | null = null;
  return async (request) => {
    if (request.method !== "GET" && request.method !== "HEAD") return null;
    const path = requestPath(request);
    if (path === "/") return new Response(null, { status: 302, headers: { location: "/console/", ...SECURITY_HEADERS } });
    const isPage = path === "/console" || path.startsWith("/console/");
    if (!isPage && !path.startsWith("/chunk-")) return null;
    const { index, assets } = await (bundle ??= loadBundle());
    // The SPA routes every /console/… path itself; the HTML is never cached so a new binary's chunks are picked up.
    if (isPage) return respond(index, "no-cache");
    const asset = assets.get(path);
    return asset ? respond(asset, "public, max-age=31536000, immutable") : null;
  };
}
