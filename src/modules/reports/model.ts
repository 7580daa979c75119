/** reports/model: the POST /v1/reports and POST /v1/strings/render bodies (DESIGN.md 4 "Reports and strings"). */
import { Type, type Static } from "@sinclair/typebox";
import { Identifier } from "../../http/schemas";
import { SheetDefinition } from "../../render/sheets";
import { MAX_TEMPLATE_LENGTH } from "../../render/strings";

const closed = { additionalProperties: false } as const;

// JSON from the parsed body: anything JSON can say, which the body parser already guarantees.
const JsonValue = Type.Unknown({ description: "JsonValue (spec 2.1)" });

/** ReportBody is the POST /v1/reports body; which fields go with which format is checked by the service. */
export const ReportBody = Type.Object(
  {
    format: Type.Union([Type.Literal("xlsx"), Type.Literal("pdf")]),
    data: JsonValue,
    sheets: Type.Optional(Type.Array(SheetDefinition, { minItems: 1, maxItems: 20 })),
    workbookAssetId: Type.Optional(Identifier),
    templateId: Type.Optional(Identifier),
    version: Type.Optional(Type.Integer({ minimum: 1 })),
    filename: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  closed,
);
export type ReportBody = Static<typeof ReportBody>;

/** StringRenderBody is the POST /v1/strings/render body. */
export const StringRenderBody = Type.Object(
  {
    template: Type.String({ maxLength: MAX_TEMPLATE_LENGTH }),
    data: Type.Optional(JsonValue),
    /** Default locale of formats (en-US). */
    locale: Type.Optional(Type.String({ minLength: 2, maxLength: 64 })),
    /** Default time zone of date formats (UTC). */
    timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  closed,
);
export type StringRenderBody = Static<typeof StringRenderBody>;

/** StringRenderResult is its answer. */
export const StringRenderResult = Type.Object({ text: Type.String() });
export type StringRenderResult = Static<typeof StringRenderResult>;
