/** render/sheets: the worksheets of a POST /v1/reports body (DESIGN.md 4 "Reports and strings"), the shape xlsx.ts fills. */
import { Type, type Static } from "@sinclair/typebox";
import { ValueReference } from "./compile/model";

const closed = { additionalProperties: false } as const;

// The path of a value reference (spec 2.12): 1..20 segments of 1..128 characters.
const DataPath = ValueReference.properties.path;

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
