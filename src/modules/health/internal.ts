/** health/internal: the internal listener (127.0.0.1 only, DESIGN.md 1): liveness, /metrics for Prometheus, and for
 * `renderd tui` /internal/state, the log lines followed live (/internal/logs) and the drain (/internal/drain, /internal/resume);
 * everything else 404 in the 7.1 envelope. */
import { Type, type Static } from "@sinclair/typebox";
import { ApiError } from "../../errors";
import { newId } from "../../lib/ids";
import { errorResponse } from "../../http/responses";
import { canonicalRequest, requestPath } from "../../http/request-target";
import { Identifier, IsoDateTime } from "../../http/schemas";
import type { LogTail } from "../../lib/log-tail";
import type { Metrics } from "../../metrics/metrics";
import { SpaceStatus } from "../../store/space";

/** LiveState is what only the running process knows: its pool and the renders it is printing (docs/operations.md). */
export const LiveState = Type.Object({
  version: Type.String(),
  pid: Type.Integer(),
  startedAt: IsoDateTime,
  /** True once SIGTERM arrived: the public port is closed and printing renders get their grace period. */
  draining: Type.Boolean(),
  /** True while the operator holds the queue (`renderd tui`'s `d`, POST /internal/drain): renders are accepted, none is
   * claimed; the renders printing finish. Until POST /internal/resume. */
  paused: Type.Boolean(),
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
  /** The process's newest log lines and those to come. */
  logs: LogTail;
  /** pause holds (true) or releases (false) the render queue of this process. */
  pause(on: boolean): void;
}

const READ = "GET, HEAD";
const CHANGE = "POST";

/** followLogs answers the kept lines, then every new one as it is written, as NDJSON, until the client goes or the tail closes. */
function followLogs(logs: LogTail, headers: Record<string, string>): Response {
  const encoder = new TextEncoder();
  let stop = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const line of logs.recent()) controller.enqueue(encoder.encode(`${line}\n`));
      stop = logs.follow(
        (line) => controller.enqueue(encoder.encode(`${line}\n`)),
        () => controller.close(),
      );
    },
    cancel() {
      stop();
    },
  });
  return new Response(body, { headers: { ...headers, "content-type": "application/x-ndjson", "cache-control": "no-store" } });
}

/** internalHandler answers requests on INTERNAL_PORT. */
export function internalHandler(deps: InternalDeps): (request: Request) => Promise<Response> {
  const state = (headers: Record<string, string>) => Response.json(deps.state(), { headers: { ...headers, "cache-control": "no-store" } });
  const reads: Record<string, (headers: Record<string, string>) => Response | Promise<Response>> = {
    "/health/live": (headers) => Response.json({ status: "ok" }, { headers }),
    "/internal/state": state,
    "/internal/logs": (headers) => followLogs(deps.logs, headers),
    "/metrics": async (headers) => {
      const { body, contentType } = await deps.metrics.text();
      return new Response(body, { headers: { ...headers, "content-type": contentType } });
    },
  };
  // Each answers the state as it is after the change, so the caller sees `paused` at once.
  const changes: Record<string, (headers: Record<string, string>) => Response> = {
    "/internal/drain": (headers) => (deps.pause(true), state(headers)),
    "/internal/resume": (headers) => (deps.pause(false), state(headers)),
  };
  return async (incoming) => {
    const requestId = newId("req");
    const request = canonicalRequest(incoming);
    if (!request) return errorResponse(new ApiError("BAD_REQUEST", "The request target could not be read; send a path such as /metrics."), requestId);
    const path = requestPath(request);
    const read = Object.hasOwn(reads, path) ? reads[path] : undefined;
    const change = Object.hasOwn(changes, path) ? changes[path] : undefined;
    if (!read && !change) return errorResponse(new ApiError("NOT_FOUND", `No route matches ${request.method} ${path} on the internal port.`), requestId);
    const allowed = read ? READ : CHANGE;
    const method = read ? request.method === "GET" || request.method === "HEAD" : request.method === "POST";
    if (!method)
      return errorResponse(new ApiError("BAD_REQUEST", `${request.method} is not allowed on ${path}; use ${allowed}.`, { status: 405, headers: { allow: allowed } }), requestId);
    return (read ?? change)!({ "x-request-id": requestId });
  };
}
