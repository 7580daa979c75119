/** model: the TypeBox shapes of templates, data schemas and documents (spec 2.12, DESIGN.md 4); types are inferred. */
import { CloneType, Type, type Static } from "@sinclair/typebox";
import { Identifier } from "../../http/schemas";

// The API refuses extra fields, so every object shape here is closed.
const closed = { additionalProperties: false } as const;

// A map keyed by Identifier; the length bound is folded into the pattern because a key carries no minLength/maxLength.
const IdentifierKey = Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$" });

/** DataType names the JSON types a DataSchema can require. */
export const DataType = Type.Union([
  Type.Literal("null"),
  Type.Literal("boolean"),
  Type.Literal("number"),
  Type.Literal("string"),
  Type.Literal("array"),
  Type.Literal("object"),
]);
export type DataType = Static<typeof DataType>;

/** DataSchema is the JSON Schema subset that describes a template's data (spec 2.12). */
export const DataSchema = Type.Recursive(
  (Self) =>
    Type.Object(
      {
        type: Type.Optional(Type.Union([DataType, Type.Array(DataType)], { description: "The JSON type the value must have, or a list of types it may have." })),
        properties: Type.Optional(Type.Record(Type.String(), Self, { description: "The schema of each named property of an object. Other properties are allowed and not checked." })),
        required: Type.Optional(Type.Array(Type.String(), { description: "Properties an object must have." })),
        items: Type.Optional(Self),
        anyOf: Type.Optional(Type.Array(Self, { description: "The value must match at least one of these schemas." })),
        const: Type.Optional(Type.String({ description: "The value must be exactly this string." })),
      },
      { ...closed, description: "Describes a template's data (a subset of JSON Schema). Render data, and a template's sampleData, are checked against it; value references are checked against it when the template is saved. `items` is the schema of each element of an array." },
    ),
  { $id: "DataSchema" },
);
export type DataSchema = Static<typeof DataSchema>;

/** Style is an inline style: property name to CSS value (numbers become px where CSS wants a length). */
export const Style = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), {
  description: "CSS declarations: property name (camelCase such as fontSize, or kebab-case such as font-size) to value. A number is in px except for unitless properties (lineHeight, fontWeight, opacity, zIndex, flex…). Values must not load resources (url(), image-set()) or contain ; { } < > \\.",
});
export type Style = Static<typeof Style>;

/** Literal is a constant value written in the template. */
export const Literal = Type.Union([Type.String({ maxLength: 100000 }), Type.Number(), Type.Boolean()], {
  description: "A constant: a string of up to 100000 characters, a number or a boolean, shown as written.",
});
export type Literal = Static<typeof Literal>;

const DataPath = Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
  minItems: 1,
  maxItems: 20,
  description: 'Property names (and array indexes such as "0") from the scope to the value: 1 to 20 segments of 1 to 128 characters. ["$page","number"] and ["$page","count"] are the page number and page count, in the header and footer only.',
});

/** Scope says where a path starts: the whole data (`root`) or the item in hand (`current`). */
export const Scope = Type.Union([Type.Literal("root"), Type.Literal("current")], {
  description: "Where the path starts: `root` is the whole data; `current` (the default) is the row of the enclosing table or repeat, the data of the enclosing component, or the whole data at the top level.",
});
export type Scope = Static<typeof Scope>;

/** ValueFormat turns a number or a date into text with Intl. */
export const ValueFormat = Type.Object(
  {
    type: Type.Union([Type.Literal("number"), Type.Literal("currency"), Type.Literal("percent"), Type.Literal("date")], {
      description: "number: 1,234.5; currency: €1,234.50 (needs `currency`); percent: 0.19 → 19%; date: an ISO date or date-time, or epoch milliseconds → Jan 31, 2026.",
    }),
    locale: Type.Optional(Type.String({ minLength: 2, maxLength: 64, description: "A BCP 47 locale such as de-DE or en-GB (2 to 64 characters). Default en-US." })),
    currency: Type.Optional(
      Type.String({ pattern: "^[A-Z]{3}$", errorMessage: "must be a three-letter currency code such as EUR", description: "The ISO 4217 code (EUR, USD, GBP…); required with type currency." }),
    ),
    minimumFractionDigits: Type.Optional(Type.Integer({ minimum: 0, maximum: 20, description: "At least this many digits after the decimal point (0 to 20)." })),
    maximumFractionDigits: Type.Optional(Type.Integer({ minimum: 0, maximum: 20, description: "At most this many digits after the decimal point (0 to 20); the value is rounded." })),
    dateStyle: Type.Optional(
      Type.Union([Type.Literal("short"), Type.Literal("medium"), Type.Literal("long"), Type.Literal("full")], {
        description: "For type date: short 1/31/26, medium Jan 31, 2026 (the default), long January 31, 2026, full Saturday, January 31, 2026 (en-US).",
      }),
    ),
    timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "For type date: the IANA time zone the date is shown in, such as Europe/Berlin (1 to 64 characters). Default UTC." })),
  },
  { ...closed, description: "How a number or date is written. A value the format cannot read (not a number or numeric string, not a date) is shown as it is." },
);
export type ValueFormat = Static<typeof ValueFormat>;

// Fields a value reference and a computed value share: what is shown around the value and instead of it.
const valueCommon = {
  fallback: Type.Optional(Type.Union([Type.String({ maxLength: 100000 }), Type.Number(), Type.Boolean()], { description: "Shown as it is (without prefix, suffix or format) when the value is missing, null, an object or an array." })),
  prefix: Type.Optional(Type.String({ maxLength: 1000, description: "Text shown before the value when there is one (up to 1000 characters)." })),
  suffix: Type.Optional(Type.String({ maxLength: 1000, description: "Text shown after the value when there is one (up to 1000 characters)." })),
  format: Type.Optional(ValueFormat),
};

/** ValueReference reads a value from the data. */
export const ValueReference = Type.Object(
  {
    path: DataPath,
    scope: Type.Optional(Scope),
    ...valueCommon,
  },
  { ...closed, description: "Reads one value from the data by its path." },
);
export type ValueReference = Static<typeof ValueReference>;

/** MAX_EXPRESSION_CHARS bounds the text of one computed value. */
export const MAX_EXPRESSION_CHARS = 10_000;

/** ValueExpression computes a value from the data with a JSONata expression (an extension of spec 2.12). */
export const ValueExpression = Type.Object(
  {
    expression: Type.String({
      minLength: 1,
      maxLength: MAX_EXPRESSION_CHARS,
      description:
        "A JSONata expression (1 to 10000 characters), such as `quantity * price` or `$sum(lines.(quantity * price))`. `$` is the current value (a table or repeat row, a component's data, else the whole data) and `$$` the whole data. Checked when the template is saved; evaluated with limits on time, depth and size.",
    }),
    ...valueCommon,
  },
  { ...closed, description: "Computes a value from the data with a JSONata expression; allowed wherever a value reference is." },
);
export type ValueExpression = Static<typeof ValueExpression>;

/** Value is what reads the data: a reference to one value, or a value computed by an expression. */
export const Value = Type.Union([ValueReference, ValueExpression]);
export type Value = Static<typeof Value>;

/** Parts is text assembled from literals and references, in order. */
export const Parts = Type.Object(
  {
    parts: Type.Array(Type.Union([Literal, ValueReference, ValueExpression]), {
      minItems: 1,
      maxItems: 100,
      description: "1 to 100 literals, value references and computed values, shown one after another.",
    }),
  },
  { ...closed, description: "Text assembled from pieces." },
);
export type Parts = Static<typeof Parts>;

/** TextValue is what a text node or a table cell shows. */
export const TextValue = Type.Union([Literal, ValueReference, ValueExpression, Parts], {
  description: "A literal, a value reference, a computed value, or parts.",
});
export type TextValue = Static<typeof TextValue>;

/** VisibleWhen shows a node only when a condition on the data holds. */
export const VisibleWhen = Type.Object(
  {
    path: DataPath,
    scope: Type.Optional(Scope),
    operator: Type.Union(
      [
        Type.Literal("truthy"),
        Type.Literal("falsy"),
        Type.Literal("equals"),
        Type.Literal("notEquals"),
        Type.Literal("exists"),
        Type.Literal("notExists"),
      ],
      {
        description:
          "truthy: not false, 0, \"\", null, missing or an empty array; falsy: the opposite; equals/notEquals: strictly equal to `value` (5 is not \"5\"); exists: neither missing nor null; notExists: missing or null.",
      },
    ),
    value: Type.Optional(Type.Union([Type.String({ maxLength: 100000 }), Type.Number(), Type.Boolean()], { description: "What equals and notEquals compare with (required with them)." })),
  },
  { ...closed, description: "Shows the node only when the condition on the data holds." },
);
export type VisibleWhen = Static<typeof VisibleWhen>;

/** MAX_TW_CHARS bounds a node's `tw` classes. */
export const MAX_TW_CHARS = 1000;

const TW_DESCRIPTION =
  "Tailwind utility classes (Tailwind 3 names, such as `text-2xl font-bold text-blue-700`), generated into the page's CSS. A class that makes no CSS is listed in the render's warnings.";

// Fields every composition node accepts.
const nodeCommon = {
  className: Type.Optional(Type.String({ maxLength: 1000, description: "CSS classes (space-separated, up to 1000 characters) for the template's stylesheet." })),
  tw: Type.Optional(Type.String({ maxLength: MAX_TW_CHARS, description: `${TW_DESCRIPTION} Up to 1000 characters.` })),
  style: Type.Optional(Style),
  visibleWhen: Type.Optional(VisibleWhen),
};

/** TableColumn is one column of a table node. */
export const TableColumn = Type.Object(
  {
    id: CloneType(Identifier, { description: "The column's id (an Identifier)." }),
    header: Type.String({ maxLength: 1000, description: "The column's heading (up to 1000 characters)." }),
    value: TextValue,
    width: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 2000, description: "The column's width in CSS pixels (1/96 in), more than 0 and at most 2000. Default: shared out by the browser." })),
    style: Type.Optional(Style),
  },
  { ...closed, description: "One column: its heading, and the value each row shows in it." },
);
export type TableColumn = Static<typeof TableColumn>;

const source = (what: string) => Type.Union([ValueReference, ValueExpression], { description: `The list ${what}: a reference to an array, or an expression (a result that is not an array is one row).` });

/** CompositionNode is a node of a template, discriminated by `type` (spec 2.12). */
export const CompositionNode = Type.Recursive(
  (Self) => {
    const Nodes = (what: string) => Type.Array(Self, { maxItems: 1000, description: `${what} (at most 1000 nodes).` });
    return Type.Union(
      [
        Type.Object({ type: Type.Literal("container", { description: "A block (div) around its children." }), children: Nodes("The nodes inside, in order"), ...nodeCommon }, closed),
        Type.Object({ type: Type.Literal("text", { description: "A block (div) of text." }), text: TextValue, ...nodeCommon }, closed),
        Type.Object(
          {
            type: Type.Literal("image", { description: "An uploaded image or SVG asset." }),
            assetId: Type.Union([Identifier, ValueReference, ValueExpression], { description: "The asset's id, or a reference or expression giving it." }),
            width: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "Width in CSS pixels (1/96 in); more than 0. Default: the image's own." })),
            height: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "Height in CSS pixels (1/96 in); more than 0. Default: kept in proportion." })),
            ...nodeCommon,
          },
          closed,
        ),
        Type.Object(
          {
            type: Type.Literal("repeat", { description: "Its children once per item of a list." }),
            source: source("repeated"),
            children: Nodes("Rendered once per item, with the item as the current value"),
            empty: Type.Optional(Nodes("Rendered instead when the list is empty or missing")),
            ...nodeCommon,
          },
          closed,
        ),
        Type.Object(
          {
            type: Type.Literal("table", { description: "A table with a row per item of a list." }),
            source: source("of rows"),
            columns: Type.Array(TableColumn, { minItems: 1, maxItems: 30, description: "1 to 30 columns." }),
            showHeader: Type.Optional(Type.Boolean({ description: "Show the header row of column headings. Default true." })),
            headerStyle: Type.Optional(CloneType(Style, { description: "Style of every header cell (th); a column's `style` is applied after it." })),
            cellStyle: Type.Optional(CloneType(Style, { description: "Style of every body cell (td), and of the emptyText row; a column's `style` is applied after it." })),
            emptyText: Type.Optional(Type.String({ maxLength: 10000, description: "One row spanning all columns, shown when the list is empty (up to 10000 characters). Default: no row." })),
            ...nodeCommon,
          },
          closed,
        ),
        Type.Object(
          {
            type: Type.Literal("component", { description: "A component of the template's `components`." }),
            componentId: CloneType(Identifier, { description: "The key of the component in `components`." }),
            data: Type.Optional(Type.Union([ValueReference, ValueExpression], { description: "The component's current value. Default: the current value where it is used." })),
            ...nodeCommon,
          },
          closed,
        ),
      ],
      { description: "A node of a template: container, text, image, repeat, table or component. Every node also takes className, tw, style and visibleWhen." },
    );
  },
  { $id: "CompositionNode" },
);
export type CompositionNode = Static<typeof CompositionNode>;

// Page lengths are CSS length strings in the units both CSS `@page` and Chromium's `page.pdf()` understand,
// so one value serves both; the pattern also keeps anything but a length out of the generated CSS.
const PAGE_LENGTH_PATTERN = "^\\d{1,4}(\\.\\d{1,3})?(mm|cm|in|px)$";

/** PageLength is a CSS length such as `210mm`, `8.5in`, `2cm` or `96px`. */
export const PageLength = Type.String({
  pattern: PAGE_LENGTH_PATTERN,
  maxLength: 16,
  errorMessage: "must be a length in mm, cm, in or px, such as 210mm or 8.5in",
  description: "A length with its unit: mm, cm, in or px (1/96 in), such as 210mm, 8.5in, 2cm.",
});

const margin = (side: string) => Type.Optional(CloneType(PageLength, { description: `The ${side} margin. Default 0 (20mm when a header or footer needs the room).` }));

/** PageSettings is a template's paper: a named or custom size, orientation and margins. */
export const PageSettings = Type.Object(
  {
    size: Type.Optional(
      Type.Union(
        [
          Type.Literal("A3"),
          Type.Literal("A4"),
          Type.Literal("A5"),
          Type.Literal("Letter"),
          Type.Literal("Legal"),
          Type.Object(
            {
              width: CloneType(PageLength, { description: "The sheet's width." }),
              height: CloneType(PageLength, { description: "The sheet's height." }),
            },
            { ...closed, description: "A custom sheet size." },
          ),
        ],
        { description: "The paper: A3, A4, A5, Letter, Legal or {width, height}. Default A4." },
      ),
    ),
    orientation: Type.Optional(Type.Union([Type.Literal("portrait"), Type.Literal("landscape")], { description: "Turns the sheet. Default portrait (a custom size as given)." })),
    margin: Type.Optional(
      Type.Object(
        { top: margin("top"), right: margin("right"), bottom: margin("bottom"), left: margin("left") },
        { ...closed, description: "The space between the sheet's edges and the content; the header and footer print inside the top and bottom margins." },
      ),
    ),
  },
  { ...closed, description: "The paper the template prints on." },
);
export type PageSettings = Static<typeof PageSettings>;

const marginal = (where: string) =>
  Type.Optional(
    CloneType(CompositionNode, {
      description: `Printed in the ${where} margin of every page, at a 10px default font size; ["$page","number"] and ["$page","count"] are the page number and count here.`,
    }),
  );

/** TemplateSource is the renderable part of a template (DESIGN.md 4); the templates module adds name and the rest. */
export const TemplateSource = Type.Object(
  {
    content: CompositionNode,
    components: Type.Optional(
      Type.Record(IdentifierKey, CompositionNode, { ...closed, description: "Reusable nodes by id (an Identifier), placed with a component node; a component may use others but not itself." }),
    ),
    dataSchema: Type.Optional(DataSchema),
    stylesheet: Type.Optional(Type.String({ description: "CSS for the whole document (and the header and footer), after the stylesheet assets in assetIds." })),
    page: Type.Optional(PageSettings),
    header: marginal("top"),
    footer: marginal("bottom"),
  },
  closed,
);
export type TemplateSource = Static<typeof TemplateSource>;

const StringMap = Type.Record(Type.String(), Type.String(), {
  description: "More HTML attributes: title, alt, role, colspan, rowspan, scope, headers, abbr, start, reversed, type, value, span, width, height, translate, data-* and aria-*.",
});

// Fields every document node accepts.
const documentCommon = {
  tagName: Type.Optional(
    Type.String({
      description:
        "The HTML element: div, span, p, h1–h6, section, article, header, footer, main, ul, ol, li, table, thead, tbody, tr, td, th, strong, em, b, i, u, small, br, hr, pre, code, blockquote, figure, figcaption. Default: span for text, div for container, img for image.",
    }),
  ),
  className: Type.Optional(Type.String({ description: "CSS classes (space-separated)." })),
  id: Type.Optional(Type.String({ description: "The element's id." })),
  lang: Type.Optional(Type.String({ description: "The language of the content, such as de." })),
  dir: Type.Optional(Type.Union([Type.Literal("ltr"), Type.Literal("rtl")], { description: "The direction of the text." })),
  attributes: Type.Optional(StringMap),
  tw: Type.Optional(Type.String({ description: TW_DESCRIPTION })),
  style: Type.Optional(Style),
  preset: Type.Optional(CloneType(Style, { description: "A base style under `style`: a property in both takes style's value." })),
};

/** DocumentNode is a ready-made document tree sent instead of a template (spec 2.12). */
export const DocumentNode = Type.Recursive(
  (Self) =>
    Type.Union(
      [
        Type.Object(
          {
            type: Type.Literal("container", { description: "An element (div by default) around its children." }),
            children: Type.Optional(Type.Array(Self, { maxItems: 1000, description: "The nodes inside, in order (at most 1000)." })),
            ...documentCommon,
          },
          closed,
        ),
        Type.Object({ type: Type.Literal("text", { description: "An element (span by default) holding text." }), text: Type.String({ description: "The text, shown as it is (no HTML)." }), ...documentCommon }, closed),
        Type.Object(
          {
            type: Type.Literal("image", { description: "An image (img)." }),
            src: Type.String({ minLength: 1, maxLength: 2048, description: "An uploaded image or SVG asset's id, or a data:image/(png|jpeg|gif|webp|svg+xml) URL (1 to 2048 characters)." }),
            width: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "Width in CSS pixels (1/96 in); more than 0." })),
            height: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "Height in CSS pixels (1/96 in); more than 0." })),
            ...documentCommon,
          },
          closed,
        ),
      ],
      { description: "A node of a ready-made document: container, text or image, written as the HTML element tagName names." },
    ),
  { $id: "DocumentNode" },
);
export type DocumentNode = Static<typeof DocumentNode>;
