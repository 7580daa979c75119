/** http/request-target: the one parsed path of a request, read by the router, the rate limiters, the sign-in limit, the
 * request log and every other check of a path (issue 26). Bun builds `request.url` from the Host header and the
 * request target: with `Host: x` it is `http://x/…`, with an empty or odd Host it has no origin at all (`/health`).
 * Elysia's router looks for the path from the 12th character on (it assumes a host of four or more), so a short Host
 * routed `POST /zzzz/v1/auth/sign-in` to sign-in while the limiters, reading the URL's pathname, counted nothing.
 * Every request is therefore handed on with one canonical URL: this origin, the target's path and query. */

/** ORIGIN is the origin of every request as renderd handles it; its host is long enough for Elysia's path search. */
const ORIGIN = "http://renderd.invalid";

/** canonicalRequest answers the request with its URL made canonical: the fixed origin, the path (dot segments resolved,
 * no trailing slash, which Elysia would ignore and the checks would not) and the query; no fragment. The body is handed
 * on as a stream, never buffered. A request already canonical is answered as is; null when the URL cannot be read. */
export function canonicalRequest(request: Request): Request | null {
  const url = URL.parse(request.url.startsWith("/") ? ORIGIN + request.url : request.url);
  if (!url) return null;
  const target = new URL(ORIGIN + url.pathname + url.search);
  if (target.pathname.length > 1 && target.pathname.endsWith("/")) target.pathname = target.pathname.replace(/\/+$/, "") || "/";
  if (target.href === request.url) return request;
  const bodiless = request.method === "GET" || request.method === "HEAD";
  return new Request(target.href, { method: request.method, headers: request.headers, body: bodiless ? null : request.body, duplex: "half" } as RequestInit);
}

/** requestPath answers the path of a request that went through canonicalRequest (its URL starts with ORIGIN). */
export function requestPath(request: Request): string {
  const start = ORIGIN.length;
  const query = request.url.indexOf("?", start);
  return query === -1 ? request.url.slice(start) : request.url.slice(start, query);
}
