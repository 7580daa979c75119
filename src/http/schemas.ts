/** http/schemas: the common types of spec 2.1, declared once for every module. */
import { CloneType, Type, type Static, type TSchema } from "@sinclair/typebox";
import { IDENTIFIER } from "../lib/ids";
import { MAX_LIMIT } from "./paging";

/** SHOWN_AS is the schema keyword `documented` sets; a name no property of ours has. */
export const SHOWN_AS = "x-shown-as";

/** documented gives a schema the form the OpenAPI document shows in its place (modules/docs/openapi.ts): a query
 * parameter arrives as text and is checked as text, but a client sends the integer or date it stands for. */
export function documented<T extends TSchema>(schema: T, openapi: Record<string, unknown>): T {
  return CloneType(schema, { [SHOWN_AS]: openapi });
}

// `errorMessage` is what a client is told when a value has the right type and the wrong form (http/validation).
const IDENTIFIER_FORM = { minLength: 1, maxLength: 128, pattern: IDENTIFIER.source };

/** Identifier is spec 2.1: 1..128 characters, a letter or digit first. */
export const Identifier = Type.String({ ...IDENTIFIER_FORM, errorMessage: "must be an id: 1 to 128 letters, digits, _ or -, starting with a letter or digit" });

export const ISO_DATE_TIME = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$";
export const IsoDateTime = documented(Type.String({ pattern: ISO_DATE_TIME, errorMessage: "must be a date and time such as 2026-03-10T10:00:00Z" }), { format: "date-time" });

/** NoQuery refuses every query parameter, for routes that take none. */
export const NoQuery = Type.Object({}, { additionalProperties: false });

export const IdParams = Type.Object({ id: Identifier }, { additionalProperties: false });

/** PageQueryFields are the `limit` and `cursor` query parameters every list takes (spec 2.1). */
export const PageQueryFields = {
  limit: Type.Optional(
    documented(Type.String({ pattern: "^[0-9]{1,6}$", errorMessage: `must be a whole number from 1 to ${MAX_LIMIT}` }), {
      type: "integer",
      minimum: 1,
      maximum: MAX_LIMIT,
      default: 50,
      description: `How many items a page holds, 1 to ${MAX_LIMIT} (default 50).`,
    }),
  ),
  cursor: Type.Optional(Type.String({ ...IDENTIFIER_FORM, errorMessage: "must be the nextCursor of a page this list gave out" })),
};

/** Page builds the spec 2.1 Page schema around an item schema. */
export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item, { description: "The items of this page." }),
    nextCursor: Type.Optional(CloneType(Identifier, { description: "Present when more items remain: send it as `cursor` for the next page." })),
  });
}

export const ErrorEnvelope = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    retryable: Type.Boolean(),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.Optional(Type.String()), message: Type.String() }))),
    renderId: Type.Optional(Type.String()),
  }),
});
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;
