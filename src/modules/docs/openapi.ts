/** docs/openapi: the OpenAPI 3.1 document of renderd, built at run time from the app's own route table — the TypeBox
 * schemas each route validates with, the security its `auth` option implies, and the `detail` a route adds — so the
 * description cannot drift from what the server checks (DESIGN.md: one schema gives validation, types and the document). */
import { API_KEY_SCHEME, SESSION_SCHEME } from "../../auth/plugin";
import { ERROR_CODES, statusOf } from "../../errors";
import { ErrorEnvelope, SHOWN_AS } from "../../http/schemas";
import { CompositionNode, DataSchema, DocumentNode } from "../../render/compile/model";

type Json = Record<string, any>;

/** RouteLike is the part of an Elysia route (`app.routes[i]`) the document is made from. */
export interface RouteLike {
  method: string;
  path: string;
  hooks?: { body?: unknown; query?: unknown; params?: unknown; response?: unknown; detail?: Json };
}

export interface DocumentOptions {
  publicUrl: string;
  sessionCookieName: string;
}

// spec 9.2: the machine-readable description carries this version string.
const API_VERSION = "0.0.0";
const ERROR_REF = { $ref: "#/components/responses/Error" };
const DESCRIPTIONS: Record<string, string> = { 200: "OK", 201: "Created", 202: "Accepted; still on its way", 503: "Not ready" };

/** Schemas is the document's components.schemas, filled as recursive schemas (TypeBox `$id`) are met. */
class Schemas {
  readonly named: Record<string, Json> = {};

  /** toJson turns a TypeBox schema into plain JSON Schema; a schema with an `$id` moves to components and is referenced. */
  toJson(schema: unknown): Json {
    return this.walk(JSON.parse(JSON.stringify(schema)));
  }

  private walk(node: unknown): any {
    if (Array.isArray(node)) return node.map((item) => this.walk(item));
    if (node === null || typeof node !== "object") return node;
    let out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      // TypeBox's Type.Recursive refers to itself by bare `$id`; in the document it lives under components.
      if (key === "$ref" && typeof value === "string" && !value.startsWith("#")) out.$ref = `#/components/schemas/${value}`;
      else if (key !== "$id" && key !== SHOWN_AS) out[key] = this.walk(value);
    }
    // http/schemas.ts `documented`: the form a client sends (an integer for a query parameter checked as text) replaces
    // the checked one; of another type it replaces it whole, keeping its description.
    const shown = (node as Json)[SHOWN_AS] as Json | undefined;
    if (shown) out = shown.type !== undefined && shown.type !== out.type ? { description: out.description, ...shown } : { ...out, ...shown };
    const id = (node as Json).$id;
    if (typeof id !== "string") return out;
    this.named[id] ??= out;
    // A use of a component that describes itself for that use (a template's `footer`) keeps its own description.
    const described = out.description !== undefined && out.description !== this.named[id].description;
    return described ? { $ref: `#/components/schemas/${id}`, description: out.description } : { $ref: `#/components/schemas/${id}` };
  }
}

function isStatusMap(response: Json): boolean {
  const keys = Object.keys(response);
  return keys.length > 0 && keys.every((key) => /^\d{3}$/.test(key));
}

function successResponses(route: RouteLike, schemas: Schemas): Json {
  const response = route.hooks?.response as Json | undefined;
  if (!response) return {};
  const byStatus: Json = isStatusMap(response) ? response : { 200: response };
  return Object.fromEntries(
    Object.entries(byStatus).map(([status, schema]) => [status, { description: DESCRIPTIONS[status] ?? status, content: { "application/json": { schema: schemas.toJson(schema) } } }]),
  );
}

function parametersOf(route: RouteLike, schemas: Schemas): Json[] {
  const parameters: Json[] = [];
  const pathSchema = schemas.toJson(route.hooks?.params ?? {});
  for (const name of route.path.match(/:[^/]+/g) ?? []) {
    const key = name.slice(1);
    parameters.push({ name: key, in: "path", required: true, schema: pathSchema.properties?.[key] ?? { type: "string" } });
  }
  const query = route.hooks?.query ? schemas.toJson(route.hooks.query) : null;
  for (const [name, schema] of Object.entries<Json>(query?.properties ?? {}))
    parameters.push({ name, in: "query", required: (query?.required ?? []).includes(name), schema });
  return parameters;
}

// Each error status an operation may answer, with the codes src/errors.ts maps to it.
function errorResponses(route: RouteLike, hasBody: boolean, hasAuth: boolean): Json {
  const statuses = new Set<number>();
  const hooks = route.hooks ?? {};
  if (hasBody || hooks.query || hooks.params || route.path.includes(":")) statuses.add(400);
  if (hasAuth) statuses.add(401).add(403);
  if (route.path.includes(":")) statuses.add(404);
  if (hasBody) statuses.add(413);
  if (route.path.startsWith("/v1/")) statuses.add(429);
  const responses: Json = {};
  for (const status of [...statuses].sort()) responses[status] = ERROR_REF;
  responses.default = ERROR_REF;
  return responses;
}

function operationOf(route: RouteLike, schemas: Schemas): Json {
  const { security, description, requestBody, responses: detailResponses, parameters: detailParameters, ...rest } = route.hooks?.detail ?? {};
  const body = route.hooks?.body ? { required: true, content: { "application/json": { schema: schemas.toJson(route.hooks.body) } } } : undefined;
  const finalBody = requestBody ? schemas.toJson({ ...body, ...requestBody }) : body;
  const operation: Json = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[/:{}.-]+(\w)/g, (_, c: string) => c.toUpperCase())}`,
    tags: [route.path.split("/")[route.path.startsWith("/v1/") ? 2 : 1]],
    ...rest,
    security: security ?? [],
    parameters: [...parametersOf(route, schemas), ...(detailParameters ?? [])],
    responses: {
      ...successResponses(route, schemas),
      ...schemas.toJson(detailResponses ?? {}),
      ...errorResponses(route, finalBody !== undefined, security !== undefined),
    },
  };
  if (description) operation.description = description;
  if (finalBody) operation.requestBody = finalBody;
  if (operation.parameters.length === 0) delete operation.parameters;
  return operation;
}

function errorStatusTable(): string {
  const byStatus = new Map<number, string[]>();
  for (const code of ERROR_CODES) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  return [...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => `${status}: ${codes.join(", ")}`).join("; ");
}

/** openApiDocument describes every route of `routes` as an OpenAPI 3.1 document. */
export function openApiDocument(routes: readonly RouteLike[], options: DocumentOptions): Json {
  const schemas = new Schemas();
  // The components as declared come first, so a use that describes itself for its place does not become the component.
  for (const component of [CompositionNode, DocumentNode, DataSchema]) schemas.toJson(component);
  const paths: Json = {};
  for (const route of routes) {
    const path = route.path.replace(/:([^/]+)/g, "{$1}");
    (paths[path] ??= {})[route.method.toLowerCase()] = operationOf(route, schemas);
  }
  const error = schemas.toJson(ErrorEnvelope);
  error.properties.error.properties.code.enum = [...ERROR_CODES];
  return {
    openapi: "3.1.0",
    info: {
      title: "renderd",
      version: API_VERSION,
      description: "The JSON API of renderd, a self-hosted document rendering appliance. Every error answers the envelope `Error`.",
    },
    servers: [{ url: options.publicUrl }],
    paths,
    components: {
      schemas: { ...schemas.named, Error: error },
      responses: {
        Error: {
          description: `An error in the spec 7.1 envelope; the status follows its code (${errorStatusTable()}; a wrong method on a known path is 405).`,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        },
      },
      securitySchemes: {
        [API_KEY_SCHEME]: { type: "apiKey", in: "header", name: "x-api-key", description: "An API key (rd_…), created in the console or with `renderd keys create`." },
        [SESSION_SCHEME]: { type: "apiKey", in: "cookie", name: options.sessionCookieName, description: "The console's signed session cookie, set by POST /v1/auth/sign-in; writes must carry the console's Origin." },
      },
    },
  };
}
