/** pdf-operations/model: the request and the answer of /v1/pdf-operations (issue 30; docs/pdf.md "Operations on PDFs")
 * and the form fields of /v1/assets/{id}/form-fields. */
import { CloneType, Type, type Static } from "@sinclair/typebox";
import { Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";
import { literalUnion } from "../../lib/literals";
import { FORM_FIELD_TYPES } from "../../pdf/operations/forms";
import { MAX_OPERATION_INPUTS, OperationInput, OperationOptions, PDF_OPERATIONS } from "../../render/operation-options";
import { RENDER_STATUSES } from "../../store/render-status";
import { DestinationIds, RenderDelivery } from "../destinations/model";

const closed = { additionalProperties: false } as const;

export const PdfOperationName = literalUnion(PDF_OPERATIONS, { description: "What to do: merge, split, rotate, stamp, watermark, fill, flatten, compress, metadata, encrypt or sign." });

/** PdfOperationRequest is one flat object: the operation, its inputs, and the options that operation takes. */
export const PdfOperationRequest = Type.Object(
  {
    operation: PdfOperationName,
    inputs: Type.Array(OperationInput, { minItems: 1, maxItems: MAX_OPERATION_INPUTS, description: "The PDFs to work on: uploaded PDF assets or succeeded renders (merge: 2 to 50; the others: 1)." }),
    filename: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "The result's file name. Default <operation>.pdf; a split's parts add -1, -2, …" })),
    destinationIds: Type.Optional(CloneType(DestinationIds, { description: "Deliver the result to these destinations once it succeeds (not for split, which makes several files)." })),
    ...OperationOptions,
  },
  closed,
);
export type PdfOperationRequest = Static<typeof PdfOperationRequest>;

const Output = Type.Object({
  downloadUrl: Type.String({ description: "A signed address of this PDF; needs no credentials until expiresAt." }),
  pages: Type.Integer({ minimum: 0 }),
  bytes: Type.Integer({ minimum: 0 }),
});

export const PdfOperation = Type.Object({
  id: CloneType(Identifier, { description: "The operation's id (pdo_…)." }),
  operation: PdfOperationName,
  status: CloneType(literalUnion(RENDER_STATUSES), { description: "queued, processing, then succeeded, failed or cancelled — as a render." }),
  filename: Type.String(),
  createdAt: IsoDateTime,
  startedAt: Type.Optional(IsoDateTime),
  finishedAt: Type.Optional(IsoDateTime),
  result: Type.Optional(
    Type.Object({
      downloadUrl: Type.String({ description: "A signed address of the result (a split's first part)." }),
      expiresAt: CloneType(IsoDateTime, { description: "When the addresses stop working; read the operation again for fresh ones." }),
      pages: Type.Integer({ minimum: 0 }),
      bytes: Type.Integer({ minimum: 0 }),
      outputs: Type.Optional(Type.Array(Output, { description: "split: one PDF per range, in the ranges' order." })),
      bytesBefore: Type.Optional(Type.Integer({ minimum: 0, description: "compress: the input's size." })),
      bytesAfter: Type.Optional(Type.Integer({ minimum: 0, description: "compress: the result's size (never more than bytesBefore)." })),
    }),
  ),
  error: Type.Optional(
    Type.Object({
      code: Type.String(),
      message: Type.String(),
      path: Type.Optional(Type.String({ description: "The JSON pointer of the request field to fix, when the input or an option was at fault." })),
    }),
  ),
  deliveries: Type.Optional(Type.Array(RenderDelivery)),
});
export type PdfOperation = Static<typeof PdfOperation>;

export const PdfOperationListQuery = Type.Object({ ...PageQueryFields, status: Type.Optional(literalUnion(RENDER_STATUSES)) }, closed);
export type PdfOperationListQuery = Static<typeof PdfOperationListQuery>;

export const OutputParams = Type.Object({ id: Identifier, i: Type.String({ pattern: "^[0-9]{1,3}$", errorMessage: "must be an output's index from 0" }) }, closed);

export const FormFields = Type.Object({
  items: Type.Array(
    Type.Object({
      name: Type.String({ description: "The field's full name, as fill takes it." }),
      type: literalUnion(FORM_FIELD_TYPES),
      value: Type.Optional(Type.Union([Type.String(), Type.Boolean(), Type.Array(Type.String())], { description: "Its value now." })),
      options: Type.Optional(Type.Array(Type.String(), { description: "A radio group's, dropdown's or list box's options." })),
    }),
  ),
});
