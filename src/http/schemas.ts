/** http/schemas: the common types of spec 2.1, declared once for every module. */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { IDENTIFIER } from "../lib/ids";
import { MAX_LIMIT } from "./paging";

// `errorMessage` is what a client is told when a value has the right type and the wrong form (http/validation).
const IDENTIFIER_FORM = { minLength: 1, maxLength: 128, pattern: IDENTIFIER.source };

/** Identifier is spec 2.1: 1..128 characters, a letter or digit first. */
export const Identifier = Type.String({ ...IDENTIFIER_FORM, errorMessage: "must be an id: 1 to 128 letters, digits, _ or -, starting with a letter or digit" });

export const ISO_DATE_TIME = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$";
export const IsoDateTime = Type.String({ pattern: ISO_DATE_TIME, errorMessage: "must be a date and time such as 2026-03-10T10:00:00Z" });

/** NoQuery refuses every query parameter, for routes that take none. */
export const NoQuery = Type.Object({}, { additionalProperties: false });

export const IdParams = Type.Object({ id: Identifier }, { additionalProperties: false });

/** PageQueryFields are the `limit` and `cursor` query parameters every list takes (spec 2.1). */
export const PageQueryFields = {
  limit: Type.Optional(Type.String({ pattern: "^[0-9]{1,6}$", errorMessage: `must be a whole number from 1 to ${MAX_LIMIT}` })),
  cursor: Type.Optional(Type.String({ ...IDENTIFIER_FORM, errorMessage: "must be the nextCursor of a page this list gave out" })),
};

/** Page builds the spec 2.1 Page schema around an item schema. */
export function Page<T extends TSchema>(item: T) {
  return Type.Object({ items: Type.Array(item), nextCursor: Type.Optional(Identifier) });
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
