/** webhook-endpoints/model: the spec 2.8 endpoint, the 2.9 delivery record and the 4.7 bodies. */
import { Type, type Static } from "@sinclair/typebox";
import { Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";
import { literalUnion } from "../../lib/literals";
import { EVENT_TYPES } from "../../webhooks/events";

export const EventTypeSchema = literalUnion(EVENT_TYPES);

// The destination rules (spec 6.7) run in the service; the schema only bounds the text.
const Url = Type.String({ minLength: 1, maxLength: 2048 });
// spec 6.2 (1): an endpoint receives only the types it lists, so an empty list would receive nothing.
const EventTypes = Type.Array(EventTypeSchema, { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true });
// spec 2.8: `description: null` removes it.
const Description = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]);

export const WebhookEndpoint = Type.Object({
  id: Identifier,
  url: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  eventTypes: Type.Array(EventTypeSchema),
  enabled: Type.Boolean(),
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
});
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

/** The endpoint with its signing secret: answered only by create and rotate-secret (spec 4.7 (3)). */
export const WebhookEndpointWithSecret = Type.Composite([WebhookEndpoint, Type.Object({ secret: Type.String({ pattern: "^whsec_" }) })]);
export type WebhookEndpointWithSecret = Static<typeof WebhookEndpointWithSecret>;

export const CreateWebhookEndpointBody = Type.Object(
  {
    url: Url,
    eventTypes: EventTypes,
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type CreateWebhookEndpointBody = Static<typeof CreateWebhookEndpointBody>;

/** spec 4.7 PATCH: only the fields sent change. */
export const UpdateWebhookEndpointBody = Type.Object(
  {
    url: Type.Optional(Url),
    description: Type.Optional(Description),
    eventTypes: Type.Optional(EventTypes),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type UpdateWebhookEndpointBody = Static<typeof UpdateWebhookEndpointBody>;

export const DeliveryStatus = literalUnion(["pending", "succeeded", "failed"] as const);

/** spec 2.9: one delivery of one event to one endpoint. */
export const WebhookDelivery = Type.Object({
  id: Identifier,
  eventId: Identifier,
  eventType: EventTypeSchema,
  renderId: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Integer({ minimum: 0 }),
  lastStatusCode: Type.Optional(Type.Integer()),
  lastError: Type.Optional(Type.String()),
  lastAttemptAt: Type.Optional(IsoDateTime),
  nextAttemptAt: Type.Optional(IsoDateTime),
  createdAt: IsoDateTime,
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookEndpointDeleted = Type.Object({ id: Identifier, deleted: Type.Literal(true) });

export const WebhookListQuery = Type.Object({ ...PageQueryFields }, { additionalProperties: false });
