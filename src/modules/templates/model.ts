/** templates/model: the template and its versions (DESIGN.md 4), their bodies, and a body check whose details point at
 * the field at fault even inside the recursive composition nodes. */
import { CloneType, Type, type Static, type TOptional, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ApiError, type ErrorDetail } from "../../errors";
import { firstProblems, NodeChecker, schemaProblems } from "../../render/compile/node-check";
import { documented, Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";
import { SignatureSettings } from "../../pdf/sign";
import { CompositionNode, DataSchema, PageSettings, TemplateSource } from "../../render/compile/model";
import { pointer } from "../../render/compile/pointer";
import { TemplatePdfOptions } from "../../render/pdf-options";
import { isObject } from "../../lib/is-object";
import { literalUnion } from "../../lib/literals";
import { DestinationIds } from "../destinations/model";

const closed = { additionalProperties: false } as const;

/** MAX_STYLESHEET_CHARS bounds a template's own stylesheet (1 MB of ASCII). */
export const MAX_STYLESHEET_CHARS = 1_000_000;
/** MAX_TEMPLATE_ASSETS bounds `assetIds`. */
export const MAX_TEMPLATE_ASSETS = 50;
/** MAX_SAMPLE_DATA_BYTES bounds `sampleData`, written as JSON (UTF-8). */
export const MAX_SAMPLE_DATA_BYTES = 1_000_000;

const Name = Type.String({ minLength: 1, maxLength: 200, description: "The template's name (1 to 200 characters)." });
// As for webhook endpoints: `description: null` removes it.
const Description = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], { description: "What the template is for (up to 1000 characters); null removes it." });
const Stylesheet = Type.String({
  maxLength: MAX_STYLESHEET_CHARS,
  description: "CSS for the whole document (and the header and footer), up to 1000000 characters; it comes after the stylesheet assets of assetIds, and the `tw` classes' CSS after it.",
});
const AssetIds = Type.Array(Identifier, {
  maxItems: MAX_TEMPLATE_ASSETS,
  uniqueItems: true,
  description: "Uploaded stylesheet and font assets the document loads (at most 50): a stylesheet is included before `stylesheet`, a font becomes an @font-face whose family is its file name without the extension.",
});
const SampleData = Type.Unknown({
  description:
    "Example data (JSON, at most 1000000 bytes), checked against dataSchema when saved (422 DATA_INVALID); a preview without data renders it, and published versions keep it.",
});
// A draft field without its optional modifier, so that PATCH can make it nullable.
const required = <T extends TSchema>(schema: TOptional<T>): T => Type.Optional(schema, false) as unknown as T;
const Components = required(TemplateSource.properties.components);

/** TemplateDraft is what a template renders from: the renderable TemplateSource plus the stylesheet and font assets it loads. */
export const TemplateDraft = Type.Object(
  {
    ...TemplateSource.properties,
    stylesheet: Type.Optional(Stylesheet),
    sampleData: Type.Optional(SampleData),
    assetIds: Type.Optional(AssetIds),
    pdf: Type.Optional(CloneType(TemplatePdfOptions, { description: "The default `pdf` options of the template's renders (all but password); a render's own are laid over them." })),
    signature: Type.Optional(CloneType(SignatureSettings, { description: "The default signature of the template's renders; a render's own `signature` replaces it." })),
    destinationIds: Type.Optional(CloneType(DestinationIds, { description: "Where the template's renders are delivered; a render's own `destinationIds` replaces the list." })),
  },
  closed,
);
export type TemplateDraft = Static<typeof TemplateDraft>;

/** DRAFT_FIELDS are the body fields that make up the draft, in the order they are stored. */
export const DRAFT_FIELDS = ["content", "components", "dataSchema", "sampleData", "stylesheet", "assetIds", "page", "header", "footer", "pdf", "signature", "destinationIds"] as const;

export const Template = Type.Object({
  id: CloneType(Identifier, { description: "The template's id (tpl_…)." }),
  name: Type.String({ description: "The template's name." }),
  description: Type.Union([Type.String(), Type.Null()], { description: "What the template is for, or null." }),
  latestVersion: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "The newest published version, or null before the first publish." }),
  draft: CloneType(TemplateDraft, { description: "The editable draft; test renders and previews use it, publishing freezes it as the next version." }),
  createdAt: CloneType(IsoDateTime, { description: "When the template was created." }),
  updatedAt: CloneType(IsoDateTime, { description: "When its name, description or draft last changed, or it was last published." }),
});
export type Template = Static<typeof Template>;

/** TemplateSummary is a list item: the template without its draft, which may be large. */
export const TemplateSummary = Type.Omit(Template, ["draft"]);
export type TemplateSummary = Static<typeof TemplateSummary>;

export const TemplateVersion = Type.Object({
  id: CloneType(Identifier, { description: "The version's id (tv_…)." }),
  templateId: CloneType(Identifier, { description: "The template it is a version of." }),
  version: Type.Integer({ minimum: 1, description: "The version number: 1 for the first publish, then 2, 3…" }),
  source: CloneType(TemplateDraft, { description: "The draft as it was when published; it never changes." }),
  publishedAt: CloneType(IsoDateTime, { description: "When it was published." }),
});
export type TemplateVersion = Static<typeof TemplateVersion>;

/** TemplateVersionSummary is a list item: the version without its source. */
export const TemplateVersionSummary = Type.Omit(TemplateVersion, ["source"]);
export type TemplateVersionSummary = Static<typeof TemplateVersionSummary>;

export const TemplateDeleted = Type.Object({ id: Identifier, deleted: Type.Literal(true) });

/** STARTER_IDS name the starters a template can begin from (GET /v1/template-starters). */
export const STARTER_IDS = ["invoice", "receipt", "letter", "report", "certificate"] as const;
export const StarterId = literalUnion(STARTER_IDS, { description: "A starter of GET /v1/template-starters: invoice, receipt, letter, report or certificate." });
export type StarterId = Static<typeof StarterId>;

export const StarterParams = Type.Object({ id: StarterId }, closed);

/** TemplateStarter is a complete draft a template can begin from (GET /v1/template-starters). */
export const TemplateStarter = Type.Object({
  id: StarterId,
  name: Type.String({ description: "The starter's name." }),
  description: Type.String({ description: "What the starter makes; a template made from it takes it as its description." }),
  source: CloneType(TemplateDraft, { description: "The draft: content, dataSchema, sampleData, stylesheet, page and footer." }),
});
export type TemplateStarter = Static<typeof TemplateStarter>;

/** CreateTemplateBody: a name and a draft — written out (`content` and the rest), or a starter's, whose fields the
 * fields sent beside `starter` replace. */
export const CreateTemplateBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    starter: Type.Optional(CloneType(StarterId, { description: "Begin from this starter's draft (and description); draft fields sent too replace the starter's." })),
    ...TemplateDraft.properties,
    content: Type.Optional(CloneType(CompositionNode, { description: "The document's content: required unless `starter` is given." })),
  },
  closed,
);
export type CreateTemplateBody = Static<typeof CreateTemplateBody>;

// `null` removes the field; the union carries the field's description, so a generated client shows it.
const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()], { description: `${schema.description ?? ""} null removes it.`.trim() }));

/** UpdateTemplateBody: the fields sent replace the draft's; null removes an optional one (content is never optional). */
export const UpdateTemplateBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    content: Type.Optional(CloneType(CompositionNode, { description: "The document's content (it cannot be removed)." })),
    components: nullable(Components),
    dataSchema: nullable(DataSchema),
    sampleData: Type.Optional(CloneType(SampleData, { description: "Example data (JSON, at most 1000000 bytes), checked against dataSchema (422 DATA_INVALID); null removes it." })),
    stylesheet: nullable(Stylesheet),
    assetIds: nullable(AssetIds),
    page: nullable(PageSettings),
    header: nullable(required(TemplateSource.properties.header)),
    footer: nullable(required(TemplateSource.properties.footer)),
    pdf: nullable(required(TemplateDraft.properties.pdf)),
    signature: nullable(required(TemplateDraft.properties.signature)),
    destinationIds: nullable(required(TemplateDraft.properties.destinationIds)),
  },
  closed,
);
export type UpdateTemplateBody = Static<typeof UpdateTemplateBody>;

export const TemplateListQuery = Type.Object({ ...PageQueryFields }, closed);

// Nine digits keep the number an exact integer well inside SQLite's range.
export const VersionParams = Type.Object(
  {
    id: Identifier,
    version: documented(Type.String({ pattern: "^[1-9][0-9]{0,8}$", errorMessage: "must be a version number: 1, 2, 3 …" }), { type: "integer", minimum: 1, maximum: 999_999_999 }),
  },
  closed,
);

// ---- The body check -------------------------------------------------------------------------------------------
// The bodies are checked here rather than by the route schema, so that a bad field inside the recursive composition
// nodes is pointed at exactly (src/http/node-check.ts says why the route schema cannot).

const MAX_DETAILS = 100;
const nodes = new NodeChecker(CompositionNode, ["children", "empty"]);
const shallow = new Map<TSchema, TSchema>();

function* allProblems(schema: TSchema, value: unknown, at: string): Generator<ErrorDetail> {
  let flat = shallow.get(schema);
  if (!flat) shallow.set(schema, (flat = nodes.withoutNodes(schema)));
  yield* schemaProblems(flat, value, at);
  if (!isObject(value)) return;
  if (value.content !== undefined) yield* nodes.problems(value.content, pointer(at, "content"));
  if (isObject(value.components))
    for (const [id, node] of Object.entries(value.components)) yield* nodes.problems(node, pointer(at, "components", id));
  for (const field of ["header", "footer"] as const) if (value[field] !== undefined && value[field] !== null) yield* nodes.problems(value[field], pointer(at, field));
}

const compiled = new Map<TSchema, ReturnType<typeof TypeCompiler.Compile>>();

/** bodyProblems lists why a template body (or a draft inside a body, at `at`) does not match its schema, one detail
 * per JSON pointer, at the field at fault. */
export function bodyProblems(schema: TSchema, value: unknown, at = ""): ErrorDetail[] {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = TypeCompiler.Compile(schema)));
  if (check.Check(value)) return [];
  return firstProblems(allProblems(schema, value, at), MAX_DETAILS);
}

/** parseBody answers the body (or the part of it at `at`) as the schema's type, or throws 400 BAD_REQUEST with a
 * detail per problem. */
export function parseBody<T extends TSchema>(schema: T, value: unknown, at = ""): Static<T> {
  let problems: ErrorDetail[];
  try {
    problems = bodyProblems(schema, value, at);
  } catch (error) {
    // Tens of thousands of nested nodes overflow the stack of the compiled check; the client sent an absurd tree.
    if (!(error instanceof RangeError)) throw error;
    problems = [{ path: at, message: "nests nodes too deeply" }];
  }
  if (problems.length) throw new ApiError("BAD_REQUEST", "The request body is not valid.", { details: problems });
  return value as Static<T>;
}
