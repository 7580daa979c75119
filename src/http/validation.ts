/** http/validation: turns Elysia's schema errors (422 by default) into 400 BAD_REQUEST with JSON-pointer details, in
 * words a client can act on. */
import type { ValidationError } from "elysia";
import { Kind } from "@sinclair/typebox";
import { ValueErrorType } from "@sinclair/typebox/errors";
import { ApiError, type ErrorDetail } from "../errors";

const WHERE: Record<string, string> = {
  body: "The request body is not valid.",
  query: "The query string is not valid.",
  params: "The path is not valid.",
  headers: "The request headers are not valid.",
};

/** ValueErrorLike is what TypeBox reports of one problem, whether Elysia or our own node check ran the schema. */
export interface ValueErrorLike {
  type: ValueErrorType;
  path: string;
  message: string;
  schema?: { anyOf?: Array<{ const?: unknown }>; errorMessage?: unknown; [Kind]?: unknown };
  value?: unknown;
}

/** statedExpectation answers the schema's own words for what a value must be — its `errorMessage` option, e.g.
 * "must be a whole number of seconds from 0 to 60" — when the value has the right type and the wrong form; a bare
 * pattern ("must be string to match '^(?:[0-9]|…)$'") tells a client nothing it can act on. */
export function statedExpectation(e: { type: ValueErrorType; schema?: Record<string, unknown> }): string | undefined {
  const stated = e.schema?.errorMessage;
  return typeof stated === "string" && e.type !== ValueErrorType.String ? stated : undefined;
}

/** describeValueError words one schema problem as what the value must be: the one mapping from TypeBox's messages to
 * ours, for route validation and the node-by-node check of templates and documents alike. */
export function describeValueError(e: ValueErrorLike): string {
  const stated = statedExpectation(e);
  if (stated) return stated;
  // A closed map (template components) refuses a key by its pattern: the key is there, it is just not an Identifier.
  if (e.type === ValueErrorType.ObjectAdditionalProperties && e.schema?.[Kind] === "Record") return "is not a valid id (letters, digits, _ and -; at most 128)";
  if (e.type === ValueErrorType.ObjectAdditionalProperties) return "is not an allowed field";
  if (e.type === ValueErrorType.ObjectRequiredProperty) return "is required";
  if (e.type === ValueErrorType.ArrayUniqueItems) return "must not list the same item twice";
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
    const detail = { path: e.path ?? "", message: describeValueError(e) };
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
