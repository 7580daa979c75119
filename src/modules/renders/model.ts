/** renders/model: the render of spec 2.11 (DESIGN.md 4 lists its fields) and the bodies and queries of its routes. */
import { CloneType, Type, type Static } from "@sinclair/typebox";
import { documented, Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";
import { literalUnion } from "../../lib/literals";
import { DocumentNode } from "../../render/compile/model";
import { NodeChecker } from "../../render/compile/node-check";
import { ImageOutput } from "../../render/image-output";
import { PdfOptions } from "../../render/pdf-options";
import { SignatureSettings } from "../../pdf/sign";
import { MAX_WARNINGS, RenderWarning } from "../../queue/warnings";
import { RENDER_STATUSES } from "../../store/render-status";
import { DestinationIds, RenderDelivery } from "../destinations/model";
import { TemplateDraft } from "../templates/model";

export const RenderStatus = literalUnion(RENDER_STATUSES);

const closed = { additionalProperties: false } as const;

// A caller's own labels, answered back as given: small scalars, so a render stays a small row.
const MetadataValue = Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean(), Type.Null()]);
export const RenderMetadata = Type.Record(Type.String({ maxLength: 128 }), MetadataValue, { maxProperties: 50 });
export type RenderMetadata = Static<typeof RenderMetadata>;

const Filename = Type.String({ minLength: 1, maxLength: 255 });

const resultFacts = { pages: Type.Integer({ minimum: 0, description: "Pages in the PDF." }), bytes: Type.Integer({ minimum: 0, description: "Bytes of the PDF." }) };

export const Render = Type.Object({
  id: CloneType(Identifier, { description: "The render's id (rnd_…)." }),
  status: CloneType(RenderStatus, { description: "queued, processing, then succeeded, failed or cancelled." }),
  test: Type.Boolean({ description: "A test render (marked TEST; counted against testRendersPerDay)." }),
  templateId: Type.Optional(CloneType(Identifier, { description: "The template rendered, if any." })),
  templateVersion: Type.Optional(Type.Integer({ minimum: 1, description: "The published version rendered; absent for a render of the draft." })),
  batchId: Type.Optional(CloneType(Identifier, { description: "The batch it belongs to, if any." })),
  filename: Type.String({ description: "The PDF's file name." }),
  metadata: CloneType(RenderMetadata, { description: "The labels given when it was created." }),
  createdAt: CloneType(IsoDateTime, { description: "When it was accepted." }),
  startedAt: Type.Optional(CloneType(IsoDateTime, { description: "When printing started." })),
  finishedAt: Type.Optional(CloneType(IsoDateTime, { description: "When it ended." })),
  result: Type.Optional(
    Type.Object(
      {
        downloadUrl: Type.String({ description: "A signed address of the PDF; needs no credentials until expiresAt." }),
        expiresAt: CloneType(IsoDateTime, { description: "When downloadUrl stops working; read the render again for a fresh one." }),
        pageImageUrl: Type.String({ description: "A signed address of a page as an image, with {n} in place of the page number; add format, width or dpi as for GET /v1/renders/{id}/pages/{n}. Valid until expiresAt." }),
        images: Type.Optional(
          Type.Array(
            Type.Object({ page: Type.Integer({ minimum: 1, description: "The page (1-based)." }), url: Type.String({ description: "A signed address of the image, valid until expiresAt." }) }),
            { description: "The images its output asked for, in page order." },
          ),
        ),
        ...resultFacts,
      },
      { description: "The PDF of a succeeded render." },
    ),
  ),
  error: Type.Optional(
    Type.Object(
      { code: Type.String({ description: "The error code, such as RENDER_TIMEOUT or LIMIT_EXCEEDED." }), message: Type.String({ description: "What went wrong." }) },
      { description: "Why a failed render failed." },
    ),
  ),
  warnings: Type.Optional(
    Type.Array(RenderWarning, { maxItems: MAX_WARNINGS, description: "What a succeeded render asked for and did not get (at most 20; absent when nothing was left out)." }),
  ),
  deliveries: Type.Optional(Type.Array(RenderDelivery, { description: "Its deliveries to the destinations it named, in their order (absent when it named none)." })),
});
export type Render = Static<typeof Render>;

/** RenderRecord is a render without its signed result address: what the workspace export keeps (docs/members.md). */
export const RenderRecord = Type.Composite([Type.Omit(Render, ["result", "deliveries"]), Type.Object({ result: Type.Optional(Type.Object(resultFacts)) })]);
export type RenderRecord = Static<typeof RenderRecord>;

/**
 * One render to create: exactly one of `templateId`, `document` or `html` (checked by the service, which names the
 * field). The route checks RenderRequestBody, in which `document` is anything: the service checks it node by node, so
 * that a bad node is pointed at exactly (render/compile/node-check.ts says why the route schema cannot).
 */
export const RenderRequest = Type.Object(
  {
    templateId: Type.Optional(CloneType(Identifier, { description: "Render this template (its newest published version, or its draft with test: true). Exactly one of templateId, document and html." })),
    version: Type.Optional(Type.Integer({ minimum: 1, description: "With templateId: render this published version." })),
    data: Type.Optional(Type.Unknown({ description: "With templateId: the data (JSON), checked against the template's dataSchema (422 DATA_INVALID)." })),
    document: Type.Optional(CloneType(DocumentNode, { description: "A ready-made document tree to render instead of a template." })),
    html: Type.Optional(Type.String({ minLength: 1, description: "A whole HTML document to render as it is; its own @page rule decides the paper (A4 otherwise)." })),
    test: Type.Optional(Type.Boolean({ description: "A test render: marked TEST, counted against testRendersPerDay instead of documentsPerMonth; a template's draft renders only as a test." })),
    filename: Type.Optional(CloneType(Filename, { description: "The PDF's file name (1 to 255 characters). Default: the template's id, or document.pdf." })),
    metadata: Type.Optional(CloneType(RenderMetadata, { description: "Your own labels (at most 50; strings up to 1000 characters, numbers, booleans, null), answered back as given." })),
    failOnBlockedResources: Type.Optional(
      Type.Boolean({ description: "Fail the render (RENDER_FAILED) when its page asks for anything it does not get, instead of listing it in warnings." }),
    ),
    pdf: Type.Optional(CloneType(PdfOptions, { description: "Tags, outline, metadata, appended PDFs, PDF/A, encryption; laid over the template's own `pdf`." })),
    signature: Type.Optional(CloneType(SignatureSettings, { description: "Sign the PDF (PAdES); replaces the template's default signature." })),
    destinationIds: Type.Optional(CloneType(DestinationIds, { description: "Deliver the PDF to these destinations once the render succeeds; replaces the template's default list." })),
    output: Type.Optional(ImageOutput),
  },
  closed,
);
export type RenderRequest = Static<typeof RenderRequest>;

/** documentNodes checks a render's `document` node by node. */
export const documentNodes = new NodeChecker(DocumentNode, ["children"]);

/** RenderRequestBody is RenderRequest as the route checks it, `document` left to the service. */
export const RenderRequestBody = documentNodes.withoutNodes(RenderRequest);

/** DESIGN.md 4: a batch is 1..500 renders, all accepted or none. */
export const MAX_BATCH = 500;
export const BatchRequest = Type.Object(
  {
    items: Type.Array(RenderRequest, { minItems: 1, maxItems: MAX_BATCH, description: "1 to 500 renders, all accepted or none." }),
    /** Offer one PDF of all items, in item order, once all have succeeded: GET /v1/renders/batch/{batchId}/merged. */
    merge: Type.Optional(Type.Boolean({ description: "Offer one PDF of all items, in item order, once all have succeeded: GET /v1/renders/batch/{batchId}/merged." })),
  },
  closed,
);

/** BatchRequestBody is BatchRequest as the route checks it (see RenderRequestBody). */
export const BatchRequestBody = documentNodes.withoutNodes(BatchRequest);

export const BatchCreated = Type.Object({ batchId: Identifier, items: Type.Array(Render) });

/** `?wait=N`: seconds to wait for the final state, at most 60 (DESIGN.md 4). */
export const MAX_WAIT_SECONDS = 60;
export const WaitQuery = Type.Object(
  {
    wait: Type.Optional(
      documented(Type.String({ pattern: "^(?:[0-9]|[1-5][0-9]|60)$", errorMessage: `must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}` }), {
        type: "integer",
        minimum: 0,
        maximum: MAX_WAIT_SECONDS,
        default: 0,
        description: `Seconds to wait for the render to end before answering, 0 to ${MAX_WAIT_SECONDS} (default 0: answer 202 at once).`,
      }),
    ),
  },
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

/** The body of a template preview: the data, and which version (the saved draft when none is given), or an unsaved
 * draft to preview in its place. */
export const PreviewRequest = Type.Object(
  {
    data: Type.Optional(Type.Unknown({ description: "The data (JSON); default the previewed draft's or version's sampleData, else {}." })),
    version: Type.Optional(Type.Integer({ minimum: 1, description: "Preview this published version. Default: the draft." })),
    draft: Type.Optional(
      CloneType(TemplateDraft, {
        description:
          "Preview this draft instead of the saved one, without saving it (unsaved edits). It is checked as saving it would check it: problems are pointed at below /draft. Not with version.",
      }),
    ),
    pdf: Type.Optional(CloneType(PdfOptions, { description: "PDF options laid over the template's own `pdf`." })),
  },
  closed,
);
export type PreviewRequest = Static<typeof PreviewRequest>;

/** PreviewRequestBody is PreviewRequest as the route checks it: `draft` is left to the service, which points at each
 * problem inside its nodes (render/compile/node-check.ts says why the route schema cannot). */
export const PreviewRequestBody = Type.Object({ ...PreviewRequest.properties, draft: Type.Optional(Type.Unknown()) }, closed);

export const PreviewQuery = Type.Object({ format: Type.Optional(literalUnion(["pdf", "html"] as const)) }, closed);

/** RenderActivity is what the workspace has outstanding now, against `maxActiveRenders` and the test allowance (spec 8.1). */
export const RenderActivity = Type.Object({ activeRenders: Type.Integer({ minimum: 0 }), activeTestRenders: Type.Integer({ minimum: 0 }) });
export type RenderActivity = Static<typeof RenderActivity>;
