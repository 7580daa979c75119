/** assets/download: the HTTP answer of a download address — the file streamed from disk with its type, its sha256 as
 * ETag (so If-None-Match answers 304) and an attachment disposition carrying the filename. */
import type { Download } from "./service";

/** contentDisposition gives `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>` (RFC 6266,
 * RFC 8187). The fallback replaces anything outside printable ASCII, quotes, backslashes and % with `_`, so no
 * filename can break out of the quotes or the header line. */
export function contentDisposition(filename: string): string {
  const wellFormed = filename.toWellFormed();
  const fallback = wellFormed.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(wellFormed).replace(/['()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** etagMatches tells whether an If-None-Match header names this strong ETag (or is `*`); weak forms compare too. */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((t) => {
    const tag = t.trim();
    return tag === "*" || tag === etag || tag === `W/${etag}`;
  });
}

/** downloadResponse answers 304 when the client has these bytes, else the file streamed from disk. */
export async function downloadResponse(download: Download, ifNoneMatch: string | null): Promise<Response> {
  const { file } = download;
  const etag = `"${download.sha256}"`;
  // The address is signed and short-lived: let caches keep the bytes but revalidate every time.
  const cacheControl = "private, no-cache";
  if (etagMatches(ifNoneMatch, etag)) return new Response(null, { status: 304, headers: { etag, "cache-control": cacheControl } });
  if (!(await file.exists())) throw new Error(`the stored file with sha256 ${download.sha256} is missing`);
  return new Response(file.body(), {
    headers: {
      "content-type": download.mediaType,
      etag,
      "cache-control": cacheControl,
      "content-disposition": contentDisposition(download.filename),
      "x-content-type-options": "nosniff",
      // An SVG opened from this origin must not run its scripts.
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    },
  });
}
