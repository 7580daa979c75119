/** api-keys/model: the spec 2.5 ApiKey and the 4.4 bodies. */
import { Type, type Static } from "@sinclair/typebox";
import { Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";
import { ScopeSchema, SCOPES } from "../../auth/scopes";

export const ApiKey = Type.Object({
  id: Identifier,
  name: Type.String({ minLength: 1, maxLength: 64 }),
  prefix: Type.String({ minLength: 1 }),
  start: Type.String({ minLength: 1 }),
  scopes: Type.Array(ScopeSchema),
  enabled: Type.Boolean(),
  createdAt: IsoDateTime,
  lastUsedAt: Type.Optional(IsoDateTime),
  expiresAt: Type.Optional(IsoDateTime),
  managed: Type.Optional(Type.Literal(true)),
});
export type ApiKey = Static<typeof ApiKey>;

export const ApiKeyCreated = Type.Composite([ApiKey, Type.Object({ secret: Type.String({ minLength: 1 }) })]);
export type ApiKeyCreated = Static<typeof ApiKeyCreated>;

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    scopes: Type.Array(ScopeSchema, { maxItems: SCOPES.length, uniqueItems: true }),
    expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
  },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

export const ApiKeyRevoked = Type.Object({ id: Identifier, revoked: Type.Literal(true) });

export const ApiKeyDeleted = Type.Object({ id: Identifier, deleted: Type.Literal(true) });

export const ApiKeyListQuery = Type.Object({ ...PageQueryFields }, { additionalProperties: false });
