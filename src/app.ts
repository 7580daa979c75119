/** app: the Elysia root — body parsing, error mapping, every module mounted — and `handle`, which wraps each request
 * with its request id, the /v1/ rate limit and one log line. */
import { Elysia, ValidationError } from "elysia";
import type { AppContext } from "./context";
import { ApiError } from "./errors";
import { authPlugin } from "./auth/plugin";
import { readJsonBody } from "./http/body";
import { clientAddress } from "./http/client-address";
import { RateLimiter } from "./http/rate-limit";
import { RequestMeta } from "./http/request-meta";
import { canonicalRequest, requestPath } from "./http/request-target";
import { errorResponse } from "./http/responses";
import { RoutesIndex } from "./http/routes-index";
import type { Space } from "./store/space";
import { validationToApiError } from "./http/validation";
import { parseCidrList } from "./lib/cidr";
import { newId } from "./lib/ids";
import { UNMATCHED } from "./metrics/metrics";
import { noTracing } from "./tracing/tracing";
import { apiKeyRoutes } from "./modules/api-keys";
import { assetAddressRoutes, assetRoutes } from "./modules/assets";
import { auditRoutes } from "./modules/audit";
import { authRoutes } from "./modules/auth";
import { certificateRoutes } from "./modules/certificates";
import { destinationRoutes } from "./modules/destinations";
import { docsRoutes } from "./modules/docs";
import type { RouteLike } from "./modules/docs/openapi";
import { renderResultRoutes, renderRoutes } from "./modules/renders";
import { pdfOperationOutputRoutes, pdfOperationRoutes } from "./modules/pdf-operations";
import { exportRoutes } from "./modules/export";
import { healthRoutes } from "./modules/health";
import { memberRoutes } from "./modules/members";
import { reportRoutes } from "./modules/reports";
import { templateConversionRoutes } from "./modules/template-conversions";
import { templateRoutes } from "./modules/templates";
import { usageRoutes } from "./modules/usage";
import { webhookEndpointRoutes } from "./modules/webhook-endpoints";
import { workspaceRoutes } from "./modules/workspaces";

/** Api is what the listener calls: one function from request (and the peer's address) to response. */
export interface Api {
  handle(request: Request, peerAddress?: string): Promise<Response>;
  /** routes is the route table: every method and path the API answers (its OpenAPI document describes each). */
  readonly routes: ReadonlyArray<{ method: string; path: string }>;
}

function toApiError(error: unknown, code: string | number, routes: RoutesIndex, request: Request, space: Space): ApiError {
  if (error instanceof ApiError) return error;
  // Elysia wraps whatever the parse hook throws (our 413 and bad-JSON errors) in a ParseError.
  if (code === "PARSE" && (error as Error).cause instanceof ApiError) return (error as Error).cause as ApiError;
  if (error instanceof ValidationError) return validationToApiError(error);
  if (code === "PARSE") return new ApiError("BAD_REQUEST", "The request body could not be read.", { details: [{ path: "", message: "malformed body" }] });
  if (code === "NOT_FOUND") {
    const path = requestPath(request);
    const allowed = routes.allowedMethods(path);
    if (allowed.length > 0)
      return new ApiError("BAD_REQUEST", `${request.method} is not allowed on ${path}; use ${allowed.join(", ")}.`, { status: 405, headers: { allow: allowed.join(", ") } });
    return new ApiError("NOT_FOUND", `No route matches ${request.method} ${path}.`);
  }
  // A write that failed for want of space (or on a read-only store) is an outage the caller is told of: 503, retryable.
  return space.failed(error) ?? new ApiError("INTERNAL", "Something went wrong on our side; try again.");
}

/** createApi builds the public API of one renderd process. */
export function createApi(app: AppContext): Api {
  const meta = new RequestMeta();
  const auth = authPlugin(app);
  const trusted = parseCidrList(app.config.trustedProxyRanges);
  const limiter = new RateLimiter({
    scope: "api",
    perMinute: app.config.apiRateLimitPerMinute,
    now: () => app.clock.now().getTime(),
    counters: app.counters,
    onUnavailable: (err) => app.log.warn({ err }, "rate counters unavailable; counting in this process"),
  });
  let routes: RoutesIndex | null = null;
  // The matched route's template (`/v1/renders/:id`), never the raw path, labels the request metrics.
  const matched = new WeakMap<Request, string>();

  const elysia = new Elysia({ normalize: false })
    .onTransform({ as: "global" }, ({ request, route }) => void matched.set(request, route))
    .onError(({ error, code, request, route }) => {
      if (route) matched.set(request, route);
      const apiError = toApiError(error, code, (routes ??= new RoutesIndex(elysia.routes)), request, app.space);
      if (apiError.status === 429) app.metrics?.rateLimited(route === "/v1/auth/sign-in" ? "sign_in" : apiError.code === "QUOTA_EXCEEDED" ? "quota" : "allowance");
      // A storage outage is logged once, by app.space, not once per request.
      if (apiError.status === 500 && !(error instanceof ApiError)) app.log.error({ err: error, requestId: meta.of(request).requestId }, "unhandled error");
      return errorResponse(apiError, meta.of(request).requestId);
    })
    // Before onParse: an upload body is streamed to disk by its route, never parsed or buffered by the JSON hook.
    .use(assetAddressRoutes(app, meta))
    .onParse(async ({ request, contentType }) => {
      if (contentType?.startsWith("application/json")) return (await readJsonBody(request, app.config.renderMaxInputBytes)) ?? null;
      // A bodyless POST (rotate, revoke, sign-out) often comes without any content type.
      if (!contentType && (await readJsonBody(request, app.config.renderMaxInputBytes)) === undefined) return null;
      throw new ApiError("BAD_REQUEST", "Send the request body as JSON with content-type application/json.", {
        details: [{ path: "", message: `content-type ${contentType || "(none)"} is not accepted` }],
      });
    })
    .use(healthRoutes(app.store, app.counters, app.space))
    .use(authRoutes(app, auth, meta))
    .use(apiKeyRoutes(app, auth, meta))
    .use(memberRoutes(app, auth, meta))
    .use(exportRoutes(app, auth, meta))
    .use(workspaceRoutes(app, auth, meta))
    .use(auditRoutes(app, auth))
    .use(webhookEndpointRoutes(app, auth, meta))
    .use(certificateRoutes(app, auth, meta))
    .use(destinationRoutes(app, auth, meta))
    .use(assetRoutes(app, auth, meta))
    .use(reportRoutes(app, auth))
    .use(templateRoutes(app, auth, meta))
    .use(templateConversionRoutes(app, auth, meta))
    .use(usageRoutes(app, auth))
    .use(renderRoutes(app, auth, meta))
    .use(renderResultRoutes(app))
    .use(pdfOperationRoutes(app, auth))
    .use(pdfOperationOutputRoutes(app))
    .use(docsRoutes(app.config, (): readonly RouteLike[] => elysia.routes));

  return {
    routes: elysia.routes,
    async handle(incoming, peerAddress) {
      // Everything below reads the one canonical path, whatever the Host header or the form of the request target.
      const request = canonicalRequest(incoming);
      if (!request) return errorResponse(new ApiError("BAD_REQUEST", "The request target could not be read; send a path such as /v1/renders."), newId("req"));
      const m = meta.begin(request, clientAddress(peerAddress, request.headers.get("x-forwarded-for"), trusted));
      const path = requestPath(request);
      const answer = async () => {
        const retryAfter = path.startsWith("/v1/") ? await limiter.hit(m.clientAddress) : null;
        if (retryAfter === null) return elysia.handle(request);
        app.metrics?.rateLimited("address");
        return errorResponse(new ApiError("RATE_LIMITED", "Too many requests from this address; slow down.", { retryAfter }), m.requestId);
      };
      const response = await (app.tracing ?? noTracing).request(request, m.requestId, answer, () => matched.get(request) ?? UNMATCHED);
      response.headers.set("x-request-id", m.requestId);
      const ms = performance.now() - m.startedAt;
      app.metrics?.request(request.method, matched.get(request) ?? UNMATCHED, response.status, ms / 1000);
      // A route that timed its steps gets the rest, its answer, as the last one (bench/render.ts reads them).
      const phases = Object.keys(m.laps.ms).length ? (m.laps.lap("answer"), m.laps.ms) : undefined;
      // Written after the response has gone out (the next turn of the event loop): a line costs ~0.1 ms an answer.
      setImmediate(() => app.log.info({ requestId: m.requestId, method: request.method, path, status: response.status, ms: Math.round(ms), phases, client: m.clientAddress }, "request"));
      return response;
    },
  };
}
