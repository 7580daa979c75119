/** health/internal: the internal listener (127.0.0.1): liveness only, everything else 404 in the 7.1 envelope. */
import { ApiError } from "../../errors";
import { newId } from "../../lib/ids";
import { errorResponse } from "../../http/responses";

/** internalHandle answers requests on INTERNAL_PORT. */
export function internalHandle(request: Request): Response {
  const path = new URL(request.url).pathname;
  const requestId = newId("req");
  if (path === "/health/live") {
    if (request.method === "GET" || request.method === "HEAD")
      return Response.json({ status: "ok" }, { headers: { "x-request-id": requestId } });
    return errorResponse(new ApiError("BAD_REQUEST", `${request.method} is not allowed on /health/live; use GET, HEAD.`, { status: 405, headers: { allow: "GET, HEAD" } }), requestId);
  }
  return errorResponse(new ApiError("NOT_FOUND", `No route matches ${request.method} ${path} on the internal port.`), requestId);
}
