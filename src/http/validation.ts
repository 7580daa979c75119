/** http/validation: turns Elysia's schema errors (422 by default) into 400 BAD_REQUEST with JSON-pointer details. */
import type { ValidationError } from "elysia";
import { ApiError, type ErrorDetail } from "../errors";

const WHERE: Record<string, string> = {
  body: "The request body is not valid.",
  query: "The query string is not valid.",
  params: "The path is not valid.",
  headers: "The request headers are not valid.",
};

interface ValueErrorLike {
  path: string;
  message: string;
  schema?: { anyOf?: Array<{ const?: unknown }> };
  value?: unknown;
}

function describe(e: ValueErrorLike): string {
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
  return new ApiError("BAD_REQUEST", WHERE[error.type] ?? "The request is not valid.", { details });
}
