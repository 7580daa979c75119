/** http/openapi: what a route adds to its OpenAPI operation (Elysia's `detail` option) when its schema options cannot
 * say it — answers that are not JSON, and bodies its handler checks itself. modules/docs builds the document. */
import type { TSchema } from "@sinclair/typebox";

/** jsonBody declares a JSON request body checked by the handler rather than by the route's `body` option. */
export function jsonBody(schema: TSchema, required = true) {
  return { required, content: { "application/json": { schema } } };
}

/** jsonResponse declares a JSON answer the route's `response` option does not carry. */
export function jsonResponse(description: string, schema: TSchema) {
  return { description, content: { "application/json": { schema } } };
}

function fileContent(mediaTypes: readonly string[]) {
  return Object.fromEntries(mediaTypes.map((type) => [type, { schema: { type: "string" as const, contentMediaType: type } }]));
}

/** fileBody declares a request body of raw bytes in one of `mediaTypes`. */
export function fileBody(mediaTypes: readonly string[]) {
  return { required: true, content: fileContent(mediaTypes) };
}

/** fileResponse declares an answer of bytes in one of `mediaTypes`. */
export function fileResponse(description: string, mediaTypes: readonly string[]) {
  return { description, content: fileContent(mediaTypes) };
}

/** withJson adds a JSON alternative to an answer of bytes (an answer that is a file or, when something went wrong, JSON). */
export function withJson<T extends { description: string; content: Record<string, unknown> }>(response: T, schema: TSchema) {
  return { ...response, content: { ...response.content, "application/json": { schema } } };
}

/** tokenParameter is the `token` query parameter that is the credential of a signed address (upload, download, result). */
export const tokenParameter = {
  name: "token",
  in: "query",
  required: true,
  description: "The signed token of the address, as given in uploadUrl or downloadUrl.",
  schema: { type: "string" },
} as const;
