/** http/responses: the one place an ApiError becomes an HTTP response (spec 7.1 envelope). */
import type { Logger } from "pino";
import { ApiError } from "../errors";
import { newId } from "../lib/ids";

/** errorResponse renders an ApiError with its status, `Retry-After` when it has one, and the request id. */
export function errorResponse(error: ApiError, requestId: string): Response {
  const headers: Record<string, string> = { "content-type": "application/json", "x-request-id": requestId, ...error.headers };
  if (error.retryAfter !== undefined) headers["retry-after"] = String(error.retryAfter);
  return new Response(JSON.stringify(error.toBody()), { status: error.status, headers });
}

/** unhandledResponse is a listener's last resort, for an error that escaped every handler (a bug): logged, and answered
 * in the envelope as INTERNAL — never Bun's own error page, which shows the error's message and stack. */
export function unhandledResponse(log: Logger): (error: Error) => Response {
  return (error) => {
    const requestId = newId("req");
    log.error({ err: error, requestId }, "unhandled error");
    return errorResponse(new ApiError("INTERNAL", "Something went wrong on our side; try again."), requestId);
  };
}
