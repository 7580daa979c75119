/** http/validation: turns Elysia's schema errors (422 by default) into 400 BAD_REQUEST with JSON-pointer details, in
 * words a client can act on. */
import type { ValidationError } from "elysia";
import { ValueErrorType } from "@sinclair/typebox/errors";
import { ApiError, type ErrorDetail } from "../errors";

const WHERE: Record<string, string> = {
  body: "The request body is not valid.",
  query: "The query string is not valid.",
  params: "The path is not valid.",
  headers: "The request headers are not valid.",
};

interface ValueErrorLike {
  type: ValueErrorType;
  path: string;
  message: string;
  schema?: { anyOf?: Array<{ const?: unknown }>; errorMessage?: unknown };
  value?: unknown;
}

/** statedExpectation answers the schema's own words for what a value must be — its `errorMessage` option, e.g.
 * "must be a whole number of seconds from 0 to 60" — when the value has the right type and the wrong form; a bare
 * pattern ("must be string to match '^(?:[0-9]|…)$'") tells a client nothing it can act on. */
export function statedExpectation(e: { type: ValueErrorType; schema?: Record<string, unknown> }): string | undefined {
  const stated = e.schema?.errorMessage;
  return typeof stated === "string" && e.type !== ValueErrorType.String ? stated : undefined;
}

function describe(e: ValueErrorLike): string {
  const stated = statedExpectation(e);
  if (stated) return stated;
  if (e.message === "Unexpected property") return "is not an allowed field";
  if (e.message === "Expected required property") return "is required";
  const consts = e.schema?.anyOf?.map((s) => s.const);
  if (consts?.length && consts.every((c) => typeof c === "string")) return `must be one of: ${consts.join(", ")}`;
  return e.message.replace(/^Expected /, "must be ");
}

/** validationToApiError maps a ValidationError to the 7.1 envelope; one detail per problem, deduplicated. */
export function validationToApiError(error: ValidationError): ApiError {
  const errors = (error.all as ValueErrorLike[]) ?? [];
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const e of errors) {
    // A union reports once per branch; the parent's line already says what is wrong.
    const detail = { path: e.path ?? "", message: describe(e) };
    const key = detail.path;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push(detail);
  }
  if (details.length === 0) details.push({ path: "", message: error.message });
  return new ApiError("BAD_REQUEST", summary(WHERE[error.type] ?? "The request is not valid.", details), { details });
}

// The message names the first problem, so a client reading only the message still learns what to change:
// "The query string is not valid: wait must be a whole number of seconds from 0 to 60."
function summary(where: string, details: ErrorDetail[]): string {
  const first = details[0]!;
  const field = first.path ? `${first.path.slice(1)} ` : "";
  const more = details.length > 1 ? ` (and ${details.length - 1} more in details)` : "";
  return `${where.replace(/\.$/, "")}: ${field}${first.message}${more}.`;
}
