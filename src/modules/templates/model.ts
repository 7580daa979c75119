/** templates/model: the template and its versions (DESIGN.md 4), their bodies, and a body check whose details point at
 * the field at fault even inside the recursive composition nodes. */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ApiError, type ErrorDetail } from "../../errors";
import { firstProblems, NodeChecker, schemaProblems } from "../../render/compile/node-check";
import { Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";
import { SignatureSettings } from "../../pdf/sign";
import { CompositionNode, DataSchema, PageSettings, TemplateSource } from "../../render/compile/model";
import { pointer } from "../../render/compile/pointer";
import { TemplatePdfOptions } from "../../render/pdf-options";
import { isObject } from "../../render/compile/values";
import { DestinationIds } from "../destinations/model";

const closed = { additionalProperties: false } as const;

/** MAX_STYLESHEET_CHARS bounds a template's own stylesheet (1 MB of ASCII). */
export const MAX_STYLESHEET_CHARS = 1_000_000;
/** MAX_TEMPLATE_ASSETS bounds `assetIds`. */
export const MAX_TEMPLATE_ASSETS = 50;

const Name = Type.String({ minLength: 1, maxLength: 200 });
// As for webhook endpoints: `description: null` removes it.
const Description = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]);
const Stylesheet = Type.String({ maxLength: MAX_STYLESHEET_CHARS });
const AssetIds = Type.Array(Identifier, { maxItems: MAX_TEMPLATE_ASSETS, uniqueItems: true });
// The renderer's own map of components, without its optional modifier so that PATCH can make it nullable.
const Components = Type.Optional(TemplateSource.properties.components, false);

/** TemplateDraft is what a template renders from: the renderable TemplateSource plus the stylesheet and font assets it loads. */
export const TemplateDraft = Type.Object(
  {
    ...TemplateSource.properties,
    stylesheet: Type.Optional(Stylesheet),
    assetIds: Type.Optional(AssetIds),
    /** The default `pdf` options of the template's renders (docs/pdf.md "Template defaults"). */
    pdf: Type.Optional(TemplatePdfOptions),
    /** The default signature of the template's renders (issue 13); a render's own `signature` replaces it. */
    signature: Type.Optional(SignatureSettings),
    /** Where the template's renders are delivered (issue 14); a render's own `destinationIds` replaces the list. */
    destinationIds: Type.Optional(DestinationIds),
  },
  closed,
);
export type TemplateDraft = Static<typeof TemplateDraft>;

/** DRAFT_FIELDS are the body fields that make up the draft, in the order they are stored. */
export const DRAFT_FIELDS = ["content", "components", "dataSchema", "stylesheet", "assetIds", "page", "header", "footer", "pdf", "signature", "destinationIds"] as const;

export const Template = Type.Object({
  id: Identifier,
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  latestVersion: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  draft: TemplateDraft,
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
});
export type Template = Static<typeof Template>;

/** TemplateSummary is a list item: the template without its draft, which may be large. */
export const TemplateSummary = Type.Omit(Template, ["draft"]);
export type TemplateSummary = Static<typeof TemplateSummary>;

export const TemplateVersion = Type.Object({
  id: Identifier,
  templateId: Identifier,
  version: Type.Integer({ minimum: 1 }),
  source: TemplateDraft,
  publishedAt: IsoDateTime,
});
export type TemplateVersion = Static<typeof TemplateVersion>;

/** TemplateVersionSummary is a list item: the version without its source. */
export const TemplateVersionSummary = Type.Omit(TemplateVersion, ["source"]);
export type TemplateVersionSummary = Static<typeof TemplateVersionSummary>;

export const TemplateDeleted = Type.Object({ id: Identifier, deleted: Type.Literal(true) });

export const CreateTemplateBody = Type.Object(
  { name: Name, description: Type.Optional(Description), ...TemplateDraft.properties },
  closed,
);
export type CreateTemplateBody = Static<typeof CreateTemplateBody>;

const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/** UpdateTemplateBody: the fields sent replace the draft's; null removes an optional one (content is never optional). */
export const UpdateTemplateBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    content: Type.Optional(CompositionNode),
    components: nullable(Components),
    dataSchema: nullable(DataSchema),
    stylesheet: nullable(Stylesheet),
    assetIds: nullable(AssetIds),
    page: nullable(PageSettings),
    header: nullable(CompositionNode),
    footer: nullable(CompositionNode),
    pdf: nullable(TemplatePdfOptions),
    signature: nullable(SignatureSettings),
    destinationIds: nullable(DestinationIds),
  },
  closed,
);
export type UpdateTemplateBody = Static<typeof UpdateTemplateBody>;

export const TemplateListQuery = Type.Object({ ...PageQueryFields }, closed);

// Nine digits keep the number an exact integer well inside SQLite's range.
export const VersionParams = Type.Object({ id: Identifier, version: Type.String({ pattern: "^[1-9][0-9]{0,8}$", errorMessage: "must be a version number: 1, 2, 3 …" }) }, closed);

// ---- The body check -------------------------------------------------------------------------------------------
// The bodies are checked here rather than by the route schema, so that a bad field inside the recursive composition
// nodes is pointed at exactly (src/http/node-check.ts says why the route schema cannot).

const MAX_DETAILS = 100;
const nodes = new NodeChecker(CompositionNode, ["children", "empty"]);
const shallow = new Map<TSchema, TSchema>();

function* allProblems(schema: TSchema, value: unknown): Generator<ErrorDetail> {
  let flat = shallow.get(schema);
  if (!flat) shallow.set(schema, (flat = nodes.withoutNodes(schema)));
  yield* schemaProblems(flat, value, "");
  if (!isObject(value)) return;
  if (value.content !== undefined) yield* nodes.problems(value.content, "/content");
  if (isObject(value.components))
    for (const [id, node] of Object.entries(value.components)) yield* nodes.problems(node, pointer("", "components", id));
  for (const field of ["header", "footer"] as const) if (value[field] !== undefined && value[field] !== null) yield* nodes.problems(value[field], `/${field}`);
}

const compiled = new Map<TSchema, ReturnType<typeof TypeCompiler.Compile>>();

/** bodyProblems lists why a template body does not match its schema, one detail per JSON pointer, at the field at fault. */
export function bodyProblems(schema: TSchema, value: unknown): ErrorDetail[] {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = TypeCompiler.Compile(schema)));
  if (check.Check(value)) return [];
  return firstProblems(allProblems(schema, value), MAX_DETAILS);
}

/** parseBody answers the body as the schema's type, or throws 400 BAD_REQUEST with a detail per problem. */
export function parseBody<T extends TSchema>(schema: T, value: unknown): Static<T> {
  let problems: ErrorDetail[];
  try {
    problems = bodyProblems(schema, value);
  } catch (error) {
    // Tens of thousands of nested nodes overflow the stack of the compiled check; the client sent an absurd tree.
    if (!(error instanceof RangeError)) throw error;
    problems = [{ path: "", message: "nests nodes too deeply" }];
  }
  if (problems.length) throw new ApiError("BAD_REQUEST", "The request body is not valid.", { details: problems });
  return value as Static<T>;
}
