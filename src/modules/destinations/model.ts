/** destinations/model: a destination (issue 14; docs/destinations.md), its delivery records and the bodies of its routes. */
import { CloneType, Type, type Static } from "@sinclair/typebox";
import { Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";
import { literalUnion } from "../../lib/literals";
import { DestinationType } from "../../destinations/settings";

const closed = { additionalProperties: false } as const;

/** A render names at most this many destinations (issue 14). */
export const MAX_RENDER_DESTINATIONS = 5;

/** A render's or a template's `destinationIds`. */
export const DestinationIds = Type.Array(Identifier, {
  maxItems: MAX_RENDER_DESTINATIONS,
  uniqueItems: true,
  description: "Destinations (dst_…) the PDF is delivered to once the render succeeds.",
});

const Name = Type.String({ minLength: 1, maxLength: 200 });
// Checked against the type's own schema by the service (settings.ts), which points at the field below /config.
const Config = Type.Record(Type.String(), Type.Unknown());

export const Destination = Type.Object({
  id: Identifier,
  name: Type.String(),
  type: DestinationType,
  /** The type's settings with every credential replaced by `********`. */
  config: Config,
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
});
export type Destination = Static<typeof Destination>;

export const CreateDestinationBody = Type.Object({ name: Name, type: DestinationType, config: Config }, closed);
export type CreateDestinationBody = Static<typeof CreateDestinationBody>;

/** PATCH: `config` fields sent replace the stored ones (null removes one); a credential left out, or sent back as
 * `********`, is kept. */
export const UpdateDestinationBody = Type.Object({ name: Type.Optional(Name), config: Type.Optional(Config) }, closed);
export type UpdateDestinationBody = Static<typeof UpdateDestinationBody>;

export const DestinationDeleted = Type.Object({ id: Identifier, deleted: Type.Literal(true) });

export const DestinationTestResult = Type.Object({ ok: Type.Boolean(), location: Type.Optional(Type.String()), error: Type.Optional(Type.String()) });
export type DestinationTestResult = Static<typeof DestinationTestResult>;

export const DeliveryStatus = literalUnion(["pending", "delivered", "failed"] as const);

/** A render's delivery to one of its destinations, as the render shows it. */
export const RenderDelivery = Type.Object({
  destinationId: CloneType(Identifier, { description: "The destination." }),
  status: CloneType(DeliveryStatus, { description: "pending until delivered, or failed after the last retry (or when the render did not succeed)." }),
  attempts: Type.Integer({ minimum: 0, description: "Attempts made so far." }),
  lastError: Type.Optional(Type.String({ description: "Why the last attempt failed." })),
  deliveredAt: Type.Optional(CloneType(IsoDateTime, { description: "When it was delivered." })),
  location: Type.Optional(Type.String({ description: "Where the file went: s3://bucket/key, sftp://host:port/path, mailto:…, or the URL." })),
});
export type RenderDelivery = Static<typeof RenderDelivery>;

/** A delivery as GET /v1/destinations/{id}/deliveries lists it. */
export const DestinationDelivery = Type.Composite([
  Type.Object({ id: Identifier, renderId: Identifier }),
  RenderDelivery,
  Type.Object({ lastAttemptAt: Type.Optional(IsoDateTime), nextAttemptAt: Type.Optional(IsoDateTime), createdAt: IsoDateTime }),
]);
export type DestinationDelivery = Static<typeof DestinationDelivery>;

export const DestinationListQuery = Type.Object({ ...PageQueryFields }, closed);
