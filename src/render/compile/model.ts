/** model: the TypeBox shapes of templates, data schemas and documents (spec 2.12, DESIGN.md 4); types are inferred. */
import { Type, type Static } from "@sinclair/typebox";
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
        type: Type.Optional(Type.Union([DataType, Type.Array(DataType)])),
        properties: Type.Optional(Type.Record(Type.String(), Self)),
        required: Type.Optional(Type.Array(Type.String())),
        items: Type.Optional(Self),
        anyOf: Type.Optional(Type.Array(Self)),
        const: Type.Optional(Type.String()),
      },
      closed,
    ),
  { $id: "DataSchema" },
);
export type DataSchema = Static<typeof DataSchema>;

/** Style is an inline style: property name to CSS value (numbers become px where CSS wants a length). */
export const Style = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]));
export type Style = Static<typeof Style>;

/** Literal is a constant value written in the template. */
export const Literal = Type.Union([Type.String({ maxLength: 100000 }), Type.Number(), Type.Boolean()]);
export type Literal = Static<typeof Literal>;

const DataPath = Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 20 });

/** Scope says where a path starts: the whole data (`root`) or the item in hand (`current`). */
export const Scope = Type.Union([Type.Literal("root"), Type.Literal("current")]);
export type Scope = Static<typeof Scope>;

/** ValueFormat turns a number or a date into text with Intl. */
export const ValueFormat = Type.Object(
  {
    type: Type.Union([Type.Literal("number"), Type.Literal("currency"), Type.Literal("percent"), Type.Literal("date")]),
    locale: Type.Optional(Type.String({ minLength: 2, maxLength: 64 })),
    currency: Type.Optional(Type.String({ pattern: "^[A-Z]{3}$", errorMessage: "must be a three-letter currency code such as EUR" })),
    minimumFractionDigits: Type.Optional(Type.Integer({ minimum: 0, maximum: 20 })),
    maximumFractionDigits: Type.Optional(Type.Integer({ minimum: 0, maximum: 20 })),
    dateStyle: Type.Optional(
      Type.Union([Type.Literal("short"), Type.Literal("medium"), Type.Literal("long"), Type.Literal("full")]),
    ),
    timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  closed,
);
export type ValueFormat = Static<typeof ValueFormat>;

/** ValueReference reads a value from the data. */
export const ValueReference = Type.Object(
  {
    path: DataPath,
    scope: Type.Optional(Scope),
    fallback: Type.Optional(Literal),
    prefix: Type.Optional(Type.String({ maxLength: 1000 })),
    suffix: Type.Optional(Type.String({ maxLength: 1000 })),
    format: Type.Optional(ValueFormat),
  },
  closed,
);
export type ValueReference = Static<typeof ValueReference>;

/** Parts is text assembled from literals and references, in order. */
export const Parts = Type.Object(
  { parts: Type.Array(Type.Union([Literal, ValueReference]), { minItems: 1, maxItems: 100 }) },
  closed,
);
export type Parts = Static<typeof Parts>;

/** TextValue is what a text node or a table cell shows. */
export const TextValue = Type.Union([Literal, ValueReference, Parts]);
export type TextValue = Static<typeof TextValue>;

/** VisibleWhen shows a node only when a condition on the data holds. */
export const VisibleWhen = Type.Object(
  {
    path: DataPath,
    scope: Type.Optional(Scope),
    operator: Type.Union([
      Type.Literal("truthy"),
      Type.Literal("falsy"),
      Type.Literal("equals"),
      Type.Literal("notEquals"),
      Type.Literal("exists"),
      Type.Literal("notExists"),
    ]),
    value: Type.Optional(Type.Union([Type.String({ maxLength: 100000 }), Type.Number(), Type.Boolean()])),
  },
  closed,
);
export type VisibleWhen = Static<typeof VisibleWhen>;

// Fields every composition node accepts.
const nodeCommon = {
  className: Type.Optional(Type.String({ maxLength: 1000 })),
  style: Type.Optional(Style),
  visibleWhen: Type.Optional(VisibleWhen),
};

const Positive = Type.Number({ exclusiveMinimum: 0 });

/** TableColumn is one column of a table node. */
export const TableColumn = Type.Object(
  {
    id: Identifier,
    header: Type.String({ maxLength: 1000 }),
    value: TextValue,
    width: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 2000 })),
    style: Type.Optional(Style),
  },
  closed,
);
export type TableColumn = Static<typeof TableColumn>;

/** CompositionNode is a node of a template, discriminated by `type` (spec 2.12). */
export const CompositionNode = Type.Recursive(
  (Self) => {
    const Nodes = Type.Array(Self, { maxItems: 1000 });
    return Type.Union([
      Type.Object({ type: Type.Literal("container"), children: Nodes, ...nodeCommon }, closed),
      Type.Object({ type: Type.Literal("text"), text: TextValue, ...nodeCommon }, closed),
      Type.Object(
        {
          type: Type.Literal("image"),
          assetId: Type.Union([Identifier, ValueReference]),
          width: Type.Optional(Positive),
          height: Type.Optional(Positive),
          ...nodeCommon,
        },
        closed,
      ),
      Type.Object(
        { type: Type.Literal("repeat"), source: ValueReference, children: Nodes, empty: Type.Optional(Nodes), ...nodeCommon },
        closed,
      ),
      Type.Object(
        {
          type: Type.Literal("table"),
          source: ValueReference,
          columns: Type.Array(TableColumn, { minItems: 1, maxItems: 30 }),
          showHeader: Type.Optional(Type.Boolean()),
          headerStyle: Type.Optional(Style),
          cellStyle: Type.Optional(Style),
          emptyText: Type.Optional(Type.String({ maxLength: 10000 })),
          ...nodeCommon,
        },
        closed,
      ),
      Type.Object(
        { type: Type.Literal("component"), componentId: Identifier, data: Type.Optional(ValueReference), ...nodeCommon },
        closed,
      ),
    ]);
  },
  { $id: "CompositionNode" },
);
export type CompositionNode = Static<typeof CompositionNode>;

// Page lengths are CSS length strings in the units both CSS `@page` and Chromium's `page.pdf()` understand,
// so one value serves both; the pattern also keeps anything but a length out of the generated CSS.
const PAGE_LENGTH_PATTERN = "^\\d{1,4}(\\.\\d{1,3})?(mm|cm|in|px)$";

/** PageLength is a CSS length such as `210mm`, `8.5in`, `2cm` or `96px`. */
export const PageLength = Type.String({ pattern: PAGE_LENGTH_PATTERN, maxLength: 16, errorMessage: "must be a length in mm, cm, in or px, such as 210mm or 8.5in" });

/** PageSettings is a template's paper: a named or custom size, orientation and margins. */
export const PageSettings = Type.Object(
  {
    size: Type.Optional(
      Type.Union([
        Type.Literal("A3"),
        Type.Literal("A4"),
        Type.Literal("A5"),
        Type.Literal("Letter"),
        Type.Literal("Legal"),
        Type.Object({ width: PageLength, height: PageLength }, closed),
      ]),
    ),
    orientation: Type.Optional(Type.Union([Type.Literal("portrait"), Type.Literal("landscape")])),
    margin: Type.Optional(
      Type.Object(
        {
          top: Type.Optional(PageLength),
          right: Type.Optional(PageLength),
          bottom: Type.Optional(PageLength),
          left: Type.Optional(PageLength),
        },
        closed,
      ),
    ),
  },
  closed,
);
export type PageSettings = Static<typeof PageSettings>;

/** TemplateSource is the renderable part of a template (DESIGN.md 4); the templates module adds name and the rest. */
export const TemplateSource = Type.Object(
  {
    content: CompositionNode,
    components: Type.Optional(Type.Record(IdentifierKey, CompositionNode, closed)),
    dataSchema: Type.Optional(DataSchema),
    stylesheet: Type.Optional(Type.String()),
    page: Type.Optional(PageSettings),
    header: Type.Optional(CompositionNode),
    footer: Type.Optional(CompositionNode),
  },
  closed,
);
export type TemplateSource = Static<typeof TemplateSource>;

const StringMap = Type.Record(Type.String(), Type.String());

// Fields every document node accepts.
const documentCommon = {
  tagName: Type.Optional(Type.String()),
  className: Type.Optional(Type.String()),
  id: Type.Optional(Type.String()),
  lang: Type.Optional(Type.String()),
  dir: Type.Optional(Type.Union([Type.Literal("ltr"), Type.Literal("rtl")])),
  attributes: Type.Optional(StringMap),
  tw: Type.Optional(Type.String()),
  style: Type.Optional(Style),
  preset: Type.Optional(Style),
};

/** DocumentNode is a ready-made document tree sent instead of a template (spec 2.12). */
export const DocumentNode = Type.Recursive(
  (Self) =>
    Type.Union([
      Type.Object(
        { type: Type.Literal("container"), children: Type.Optional(Type.Array(Self, { maxItems: 1000 })), ...documentCommon },
        closed,
      ),
      Type.Object({ type: Type.Literal("text"), text: Type.String(), ...documentCommon }, closed),
      Type.Object(
        {
          type: Type.Literal("image"),
          src: Type.String({ minLength: 1, maxLength: 2048 }),
          width: Type.Optional(Positive),
          height: Type.Optional(Positive),
          ...documentCommon,
        },
        closed,
      ),
    ]),
  { $id: "DocumentNode" },
);
export type DocumentNode = Static<typeof DocumentNode>;
