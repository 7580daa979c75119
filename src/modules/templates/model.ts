/** templates/model: the template and its versions (DESIGN.md 4), their bodies, and a body check whose details point at
 * the field at fault even inside the recursive composition nodes. */
import { Kind, OptionalKind, Type, type Static, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Errors, ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { ApiError, type ErrorDetail } from "../../errors";
import { Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";
import { CompositionNode, DataSchema, PageSettings, TemplateSource } from "../../render/compile/model";
import { pointer } from "../../render/compile/pointer";

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
  },
  closed,
);
export type TemplateDraft = Static<typeof TemplateDraft>;

/** DRAFT_FIELDS are the body fields that make up the draft, in the order they are stored. */
export const DRAFT_FIELDS = ["content", "components", "dataSchema", "stylesheet", "assetIds", "page", "header", "footer"] as const;

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
  },
  closed,
);
export type UpdateTemplateBody = Static<typeof UpdateTemplateBody>;

export const TemplateListQuery = Type.Object({ ...PageQueryFields }, closed);

// Nine digits keep the number an exact integer well inside SQLite's range.
export const VersionParams = Type.Object({ id: Identifier, version: Type.String({ pattern: "^[1-9][0-9]{0,8}$" }) }, closed);

// ---- The body check -------------------------------------------------------------------------------------------
// The bodies are checked here rather than by the route schema: for a recursive union, TypeBox (and so Elysia) reports
// one "Expected union value" at the outermost node, say `/content`, whatever is wrong deep inside it. Finding the
// culprit by TypeBox's own union errors costs a full re-check of the subtree at every level (quadratic, and deep
// enough it overflows the stack). So the body is checked with every composition node stubbed out, and then each node
// on its own, against the branch its `type` names, walking the tree with an explicit stack.

// One body may hold thousands of bad nodes; a client needs the first few to fix the pattern.
const MAX_DETAILS = 100;
const NODE = "CompositionNode";

// A copy of the schema in which every composition node accepts anything; object spread keeps TypeBox's symbol keys.
function withoutNodes<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withoutNodes) as T;
  if (typeof schema !== "object" || schema === null) return schema;
  const s = schema as unknown as TSchema;
  if (s.$id === NODE || (s[Kind] === "This" && s.$ref === NODE)) return (s[OptionalKind] ? Type.Optional(Type.Unknown()) : Type.Unknown()) as T;
  const out: Record<string | symbol, unknown> = { ...s };
  for (const key of Object.keys(s)) out[key] = withoutNodes(s[key]);
  return out as T;
}

const NODE_BRANCHES = (CompositionNode.anyOf as TSchema[]).map(withoutNodes);
const NODE_TYPES = NODE_BRANCHES.map((b) => String(b.properties.type.const));
const shallow = new Map<TSchema, TSchema>();

function describe(e: ValueError): string {
  // A closed map (components) refuses a key by its pattern: the key is there, it is just not an Identifier.
  if (e.type === ValueErrorType.ObjectAdditionalProperties && e.schema[Kind] === "Record") return "is not a valid id (letters, digits, _ and -; at most 128)";
  if (e.type === ValueErrorType.ObjectAdditionalProperties) return "is not an allowed field";
  if (e.type === ValueErrorType.ObjectRequiredProperty) return "is required";
  if (e.type === ValueErrorType.ArrayUniqueItems) return "must not list the same item twice";
  return e.message.replace(/^Expected /, "must be ");
}

type JsKind = "string" | "number" | "boolean" | "null" | "array" | "object";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function kindOf(value: unknown): JsKind {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const t = typeof value;
  return t === "string" || t === "number" || t === "boolean" ? t : "object";
}

// The JSON kinds a schema accepts.
function kindsOf(schema: TSchema): JsKind[] {
  switch (schema[Kind]) {
    case "String":
      return ["string"];
    case "Number":
    case "Integer":
      return ["number"];
    case "Boolean":
      return ["boolean"];
    case "Null":
      return ["null"];
    case "Literal":
      return [kindOf(schema.const)];
    case "Array":
      return ["array"];
    case "Object":
    case "Record":
      return ["object"];
    case "Union":
      return [...new Set((schema.anyOf as TSchema[]).flatMap(kindsOf))];
    default:
      return ["string", "number", "boolean", "null", "array", "object"];
  }
}

function unionMessage(branches: TSchema[]): string {
  const consts = branches.filter((b) => b[Kind] === "Literal").map((b) => String(b.const));
  const others = [...new Set(branches.filter((b) => b[Kind] !== "Literal").flatMap(kindsOf))].map((k) => (k === "null" ? k : k === "object" || k === "array" ? `an ${k}` : `a ${k}`));
  if (others.length === 0) return `must be one of: ${consts.join(", ")}`;
  const listed = [...consts, ...others];
  const alternatives = listed.length > 1 ? `${listed.slice(0, -1).join(", ")} or ${listed.at(-1)}` : listed[0];
  return consts.length ? `must be one of: ${alternatives}` : `must be ${alternatives}`;
}

// A union error says only that no branch matched; report the problems of the branch the value was meant to be: one
// of the value's own kind (a string for `"A6"`), the one with the fewest problems. None of these unions holds a node.
function* refine(e: ValueError, at: string): Generator<ErrorDetail> {
  if (e.type !== ValueErrorType.Union) return yield { path: at + e.path, message: describe(e) };
  // A missing required field also visits the field's schema with `undefined`; "is required" was said already.
  if (e.value === undefined) return yield { path: at + e.path, message: "is required" };
  const branches = e.schema.anyOf as TSchema[];
  const kind = kindOf(e.value);
  const candidates = branches.map((_, i) => i).filter((i) => kindsOf(branches[i]).includes(kind));
  if (candidates.length === 0 || candidates.every((i) => branches[i][Kind] === "Literal")) return yield { path: at + e.path, message: unionMessage(branches) };
  const errors = candidates.map((i) => [...e.errors[i]]);
  for (const inner of errors.reduce((a, b) => (b.length < a.length ? b : a))) yield* refine(inner, at);
}

function* nodeProblems(root: unknown, rootAt: string): Generator<ErrorDetail> {
  const stack: [unknown, string][] = [[root, rootAt]];
  while (stack.length) {
    const [node, at] = stack.pop()!;
    if (!isObject(node)) {
      yield { path: at, message: "must be an object" };
      continue;
    }
    const { type, children, empty } = node;
    const i = typeof type === "string" ? NODE_TYPES.indexOf(type) : -1;
    if (i < 0) {
      const allowed = NODE_TYPES.join(", ");
      yield { path: pointer(at, "type"), message: type === undefined ? `is required (one of: ${allowed})` : `must be one of: ${allowed}` };
      continue;
    }
    for (const e of Errors(NODE_BRANCHES[i], [], node)) yield* refine(e, at);
    // Pushed last to first, so problems come out in document order.
    for (const [field, list] of [["empty", empty], ["children", children]] as const)
      if (Array.isArray(list)) for (let j = list.length - 1; j >= 0; j--) stack.push([list[j], pointer(at, field, j)]);
  }
}

function* allProblems(schema: TSchema, value: unknown): Generator<ErrorDetail> {
  let flat = shallow.get(schema);
  if (!flat) shallow.set(schema, (flat = withoutNodes(schema)));
  for (const e of Errors(flat, [], value)) yield* refine(e, "");
  if (!isObject(value)) return;
  const body = value;
  if (body.content !== undefined) yield* nodeProblems(body.content, "/content");
  if (isObject(body.components))
    for (const [id, node] of Object.entries(body.components)) yield* nodeProblems(node, pointer("", "components", id));
  for (const field of ["header", "footer"] as const) if (body[field] !== undefined && body[field] !== null) yield* nodeProblems(body[field], `/${field}`);
}

const compiled = new Map<TSchema, ReturnType<typeof TypeCompiler.Compile>>();

/** bodyProblems lists why a template body does not match its schema, one detail per JSON pointer, at the field at fault. */
export function bodyProblems(schema: TSchema, value: unknown): ErrorDetail[] {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = TypeCompiler.Compile(schema)));
  if (check.Check(value)) return [];
  const details = new Map<string, ErrorDetail>();
  for (const detail of allProblems(schema, value)) {
    if (!details.has(detail.path!)) details.set(detail.path!, detail);
    if (details.size >= MAX_DETAILS) break;
  }
  return [...details.values()];
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
