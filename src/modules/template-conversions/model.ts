/** template-conversions/model: a conversion of a PDF asset into a template (issue 14, docs/conversions.md). */
import { Type, type Static } from "@sinclair/typebox";
import { Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";

const closed = { additionalProperties: false } as const;

/** ConversionStatus: queued until the runner takes it, processing while it converts, then succeeded or failed. */
export const ConversionStatus = Type.Union([Type.Literal("queued"), Type.Literal("processing"), Type.Literal("succeeded"), Type.Literal("failed")]);
export type ConversionStatus = Static<typeof ConversionStatus>;

/** TemplateConversion is one conversion of a PDF asset into a template (docs/conversions.md). */
export const TemplateConversion = Type.Object({
  id: Identifier,
  assetId: Identifier,
  status: ConversionStatus,
  /** The template made, once succeeded. */
  templateId: Type.Optional(Identifier),
  /** Why it failed, once failed: what to do about it. */
  error: Type.Optional(Type.String()),
  /** Once succeeded: the values found in the source, valid against the template's dataSchema; rendering the template
   * with them reproduces the source. */
  sampleData: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  createdAt: IsoDateTime,
  startedAt: Type.Optional(IsoDateTime),
  finishedAt: Type.Optional(IsoDateTime),
});
export type TemplateConversion = Static<typeof TemplateConversion>;

/** ConversionSummary is a list item: the conversion without its sampleData, which may be large. */
export const ConversionSummary = Type.Omit(TemplateConversion, ["sampleData"]);
export type ConversionSummary = Static<typeof ConversionSummary>;

/** CreateConversionBody names the PDF asset to convert. */
export const CreateConversionBody = Type.Object({ assetId: Identifier }, closed);
export type CreateConversionBody = Static<typeof CreateConversionBody>;

export const ConversionListQuery = Type.Object({ ...PageQueryFields }, closed);
