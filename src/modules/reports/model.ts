/** reports/model: the POST /v1/reports and POST /v1/strings/render bodies (DESIGN.md 4 "Reports and strings"). */
import { Type, type Static } from "@sinclair/typebox";
import { Identifier } from "../../http/schemas";
import { ValueReference } from "../../render/compile/model";
import { MAX_TEMPLATE_LENGTH } from "../../render/strings";

const closed = { additionalProperties: false } as const;

// The path of a value reference (spec 2.12): 1..20 segments of 1..128 characters.
const DataPath = ValueReference.properties.path;

// JSON from the parsed body: anything JSON can say, which the body parser already guarantees.
const JsonValue = Type.Unknown({ description: "JsonValue (spec 2.1)" });

// Excel: 1..31 characters, none of [ ] : * ? / \, and no apostrophe first or last.
const SHEET_NAME = "^(?!')[^\\[\\]:*?/\\\\]{1,31}(?<!')$";

/** SheetColumn is one column of a report sheet: its header, the value of each row and how it is shown. */
export const SheetColumn = Type.Object(
  {
    header: Type.String({ maxLength: 1000 }),
    /** Read from each item of the sheet's source (scope `current`, the default) or from the whole data (`root`). */
    value: ValueReference,
    /** Excel column width in characters. */
    width: Type.Optional(Type.Number({ minimum: 1, maximum: 255 })),
    /** Excel number format (`#,##0.00`, `yyyy-mm-dd`); without it one is derived from `value.format`. */
    numFmt: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  closed,
);
export type SheetColumn = Static<typeof SheetColumn>;

/** SheetDefinition is one worksheet of a report: a row per item of the array at `source` (a root path). */
export const SheetDefinition = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 31, pattern: SHEET_NAME, errorMessage: "must be an Excel sheet name: 1 to 31 characters, none of [ ] : * ? / \\, not starting or ending with '" }),
    source: DataPath,
    columns: Type.Array(SheetColumn, { minItems: 1, maxItems: 100 }),
    /** A bold first row above the header. */
    title: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  closed,
);
export type SheetDefinition = Static<typeof SheetDefinition>;

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
