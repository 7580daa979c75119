/** audit/model: the spec 2.7 AuditEvent and the 4.6 list query. */
import { Type, type Static } from "@sinclair/typebox";
import { ActorType } from "../../auth/actor";
import { Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";

export const MetadataValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
export const Metadata = Type.Record(Type.String(), MetadataValue);
export type Metadata = Static<typeof Metadata>;

export const AuditEvent = Type.Object({
  id: Identifier,
  actorType: ActorType,
  actorId: Type.String({ minLength: 1, maxLength: 128 }),
  actorName: Type.Optional(Type.String({ minLength: 1 })),
  actorEmail: Type.Optional(Type.String({ minLength: 1 })),
  action: Type.String({ minLength: 1, maxLength: 128 }),
  resourceType: Type.String({ minLength: 1, maxLength: 128 }),
  resourceId: Type.String({ minLength: 1, maxLength: 128 }),
  resourceName: Type.Optional(Type.String({ minLength: 1 })),
  resourceDeleted: Type.Optional(Type.Boolean()),
  requestId: Type.String({ minLength: 1, maxLength: 128 }),
  metadata: Metadata,
  createdAt: IsoDateTime,
});
export type AuditEvent = Static<typeof AuditEvent>;

const Text128 = Type.String({ minLength: 1, maxLength: 128 });

export const AuditQuery = Type.Object(
  {
    ...PageQueryFields,
    action: Type.Optional(Text128),
    actorType: Type.Optional(ActorType),
    actorId: Type.Optional(Text128),
    resourceType: Type.Optional(Text128),
    resourceId: Type.Optional(Text128),
    from: Type.Optional(IsoDateTime),
    to: Type.Optional(IsoDateTime),
  },
  { additionalProperties: false },
);
export type AuditQuery = Static<typeof AuditQuery>;
