/** http/schemas: the common types of spec 2.1, declared once for every module. */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { IDENTIFIER } from "../lib/ids";

/** Identifier is spec 2.1: 1..128 characters, a letter or digit first. */
export const Identifier = Type.String({ minLength: 1, maxLength: 128, pattern: IDENTIFIER.source });

export const ISO_DATE_TIME = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$";
export const IsoDateTime = Type.String({ pattern: ISO_DATE_TIME });

/** NoQuery refuses every query parameter, for routes that take none. */
export const NoQuery = Type.Object({}, { additionalProperties: false });

export const IdParams = Type.Object({ id: Identifier }, { additionalProperties: false });

/** PageQueryFields are the `limit` and `cursor` query parameters every list takes (spec 2.1). */
export const PageQueryFields = {
  limit: Type.Optional(Type.String({ pattern: "^[0-9]{1,6}$" })),
  cursor: Type.Optional(Identifier),
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
