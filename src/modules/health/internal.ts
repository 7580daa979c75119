/** health/internal: the internal listener (127.0.0.1 only, DESIGN.md 1): liveness, /metrics for Prometheus and
 * /internal/state for `renderd tui`; everything else 404 in the 7.1 envelope. */
import { Type, type Static } from "@sinclair/typebox";
import { ApiError } from "../../errors";
import { newId } from "../../lib/ids";
import { errorResponse } from "../../http/responses";
import { canonicalRequest, requestPath } from "../../http/request-target";
import { Identifier, IsoDateTime } from "../../http/schemas";
import type { Metrics } from "../../metrics/metrics";
import { SpaceStatus } from "../../store/space";

/** LiveState is what only the running process knows: its pool and the renders it is printing (docs/operations.md). */
export const LiveState = Type.Object({
  version: Type.String(),
  pid: Type.Integer(),
  startedAt: IsoDateTime,
  /** True once SIGTERM arrived: the public port is closed and printing renders get their grace period. */
  draining: Type.Boolean(),
  pool: Type.Object({
    state: Type.String(),
    size: Type.Integer(),
    busy: Type.Integer(),
    idle: Type.Integer(),
    /** Pages being opened, reset or replaced. */
    recycling: Type.Integer(),
    waiting: Type.Integer(),
    browserRestarts: Type.Integer(),
    rssBytes: Type.Integer(),
  }),
  inFlight: Type.Array(Type.Object({ renderId: Identifier, workspaceId: Identifier, startedAt: IsoDateTime })),
  /** DATA_DIR's free space, and why new renders, uploads and templates are refused when they are (store/space.ts). */
  storage: SpaceStatus,
});
export type LiveState = Static<typeof LiveState>;

export interface InternalDeps {
  metrics: Metrics;
  state(): LiveState;
}

const READ = "GET, HEAD";

/** internalHandler answers requests on INTERNAL_PORT. */
export function internalHandler(deps: InternalDeps): (request: Request) => Promise<Response> {
  const routes: Record<string, (headers: Record<string, string>) => Response | Promise<Response>> = {
    "/health/live": (headers) => Response.json({ status: "ok" }, { headers }),
    "/internal/state": (headers) => Response.json(deps.state(), { headers: { ...headers, "cache-control": "no-store" } }),
    "/metrics": async (headers) => {
      const { body, contentType } = await deps.metrics.text();
      return new Response(body, { headers: { ...headers, "content-type": contentType } });
    },
  };
  return async (incoming) => {
    const requestId = newId("req");
    const request = canonicalRequest(incoming);
    if (!request) return errorResponse(new ApiError("BAD_REQUEST", "The request target could not be read; send a path such as /metrics."), requestId);
    const path = requestPath(request);
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (!route) return errorResponse(new ApiError("NOT_FOUND", `No route matches ${request.method} ${path} on the internal port.`), requestId);
    if (request.method !== "GET" && request.method !== "HEAD")
      return errorResponse(new ApiError("BAD_REQUEST", `${request.method} is not allowed on ${path}; use ${READ}.`, { status: 405, headers: { allow: READ } }), requestId);
    return route({ "x-request-id": requestId });
  };
}
