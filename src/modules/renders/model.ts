/** renders/model: the render of spec 2.11 (DESIGN.md 4 lists its fields) and the bodies and queries of its routes. */
import { Type, type Static } from "@sinclair/typebox";
import { Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";
import { literalUnion } from "../../lib/literals";
import { PdfOptions } from "../../render/pdf-options";
import { SignatureSettings } from "../../pdf/sign";
import { MAX_WARNINGS, RenderWarning } from "../../render/warnings";
import { RENDER_STATUSES } from "../../store/render-status";
import { DestinationIds, RenderDelivery } from "../destinations/model";

export const RenderStatus = literalUnion(RENDER_STATUSES);

const closed = { additionalProperties: false } as const;

// A caller's own labels, answered back as given: small scalars, so a render stays a small row.
const MetadataValue = Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean(), Type.Null()]);
export const RenderMetadata = Type.Record(Type.String({ maxLength: 128 }), MetadataValue, { maxProperties: 50 });
export type RenderMetadata = Static<typeof RenderMetadata>;

const Filename = Type.String({ minLength: 1, maxLength: 255 });

const resultFacts = { pages: Type.Integer({ minimum: 0 }), bytes: Type.Integer({ minimum: 0 }) };

export const Render = Type.Object({
  id: Identifier,
  status: RenderStatus,
  test: Type.Boolean(),
  templateId: Type.Optional(Identifier),
  /** Absent for a render of the draft. */
  templateVersion: Type.Optional(Type.Integer({ minimum: 1 })),
  batchId: Type.Optional(Identifier),
  filename: Type.String(),
  metadata: RenderMetadata,
  createdAt: IsoDateTime,
  startedAt: Type.Optional(IsoDateTime),
  finishedAt: Type.Optional(IsoDateTime),
  result: Type.Optional(
    Type.Object({
      downloadUrl: Type.String(),
      expiresAt: IsoDateTime,
      ...resultFacts,
    }),
  ),
  error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
  /** A succeeded render's page asked for these and did not get them (absent when nothing was left out). */
  warnings: Type.Optional(Type.Array(RenderWarning, { maxItems: MAX_WARNINGS })),
  /** Its deliveries to the destinations it named, in their order (issue 14; absent when it named none). */
  deliveries: Type.Optional(Type.Array(RenderDelivery)),
});
export type Render = Static<typeof Render>;

/** RenderRecord is a render without its signed result address: what the workspace export keeps (docs/members.md). */
export const RenderRecord = Type.Composite([Type.Omit(Render, ["result", "deliveries"]), Type.Object({ result: Type.Optional(Type.Object(resultFacts)) })]);
export type RenderRecord = Static<typeof RenderRecord>;

/**
 * One render to create: exactly one of `templateId`, `document` or `html` (checked by the service, which names the
 * field). `document` is checked against DocumentNode by the service too, so that a bad node is pointed at exactly.
 */
export const RenderRequest = Type.Object(
  {
    templateId: Type.Optional(Identifier),
    version: Type.Optional(Type.Integer({ minimum: 1 })),
    data: Type.Optional(Type.Unknown()),
    document: Type.Optional(Type.Unknown()),
    html: Type.Optional(Type.String({ minLength: 1 })),
    test: Type.Optional(Type.Boolean()),
    filename: Type.Optional(Filename),
    metadata: Type.Optional(RenderMetadata),
    /** Fail the render (RENDER_FAILED) when its page asks for anything it does not get, instead of warning. */
    failOnBlockedResources: Type.Optional(Type.Boolean()),
    /** Tags, outline, metadata, appended PDFs, PDF/A (docs/pdf.md); laid over the template's own `pdf`. */
    pdf: Type.Optional(PdfOptions),
    /** Sign the PDF (issue 13); replaces the template's default signature. */
    signature: Type.Optional(SignatureSettings),
    /** Deliver the file to these destinations once the render succeeds (issue 14); replaces the template's default list. */
    destinationIds: Type.Optional(DestinationIds),
  },
  closed,
);
export type RenderRequest = Static<typeof RenderRequest>;

/** DESIGN.md 4: a batch is 1..500 renders, all accepted or none. */
export const MAX_BATCH = 500;
export const BatchRequest = Type.Object(
  {
    items: Type.Array(RenderRequest, { minItems: 1, maxItems: MAX_BATCH }),
    /** Offer one PDF of all items, in item order, once all have succeeded: GET /v1/renders/batch/{batchId}/merged. */
    merge: Type.Optional(Type.Boolean()),
  },
  closed,
);

export const BatchCreated = Type.Object({ batchId: Identifier, items: Type.Array(Render) });

/** `?wait=N`: seconds to wait for the final state, at most 60 (DESIGN.md 4). */
export const MAX_WAIT_SECONDS = 60;
export const WaitQuery = Type.Object(
  { wait: Type.Optional(Type.String({ pattern: "^(?:[0-9]|[1-5][0-9]|60)$", errorMessage: `must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}` })) },
  closed,
);

export const RenderListQuery = Type.Object(
  {
    ...PageQueryFields,
    status: Type.Optional(RenderStatus),
    test: Type.Optional(literalUnion(["true", "false"] as const)),
    templateId: Type.Optional(Identifier),
  },
  closed,
);
export type RenderListQuery = Static<typeof RenderListQuery>;

/** The body of a template preview: the data, and which version (the draft when none is given). */
export const PreviewRequest = Type.Object(
  { data: Type.Optional(Type.Unknown()), version: Type.Optional(Type.Integer({ minimum: 1 })), pdf: Type.Optional(PdfOptions) },
  closed,
);
export type PreviewRequest = Static<typeof PreviewRequest>;

export const PreviewQuery = Type.Object({ format: Type.Optional(literalUnion(["pdf", "html"] as const)) }, closed);

/** RenderActivity is what the workspace has outstanding now, against `maxActiveRenders` and the test allowance (spec 8.1). */
export const RenderActivity = Type.Object({ activeRenders: Type.Integer({ minimum: 0 }), activeTestRenders: Type.Integer({ minimum: 0 }) });
export type RenderActivity = Static<typeof RenderActivity>;
