/** http/responses: the one place an ApiError becomes an HTTP response (spec 7.1 envelope). */
import { ApiError } from "../errors";

/** errorResponse renders an ApiError with its status, `Retry-After` when it has one, and the request id. */
export function errorResponse(error: ApiError, requestId: string): Response {
  const headers: Record<string, string> = { "content-type": "application/json", "x-request-id": requestId, ...error.headers };
  if (error.retryAfter !== undefined) headers["retry-after"] = String(error.retryAfter);
  return new Response(JSON.stringify(error.toBody()), { status: error.status, headers });
}
