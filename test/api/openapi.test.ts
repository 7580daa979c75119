/** GET /v1/openapi.json: every route of the app's own table is described, the document is valid OpenAPI 3.1, and a
 * client typed from it (openapi-typescript) type-checks — while a wrong call does not. The app is built in-process
 * (test/api/in-process.ts) without starting Chromium: the document needs the routes, not the pool. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import openapiTS, { astToString } from "openapi-typescript";
import { buildApi, type InProcessApi } from "./in-process";

const PUBLIC_URL = "http://console.example.test";
let app: InProcessApi;
let doc: any;

beforeAll(async () => {
  app = await buildApi({ PUBLIC_URL, SESSION_COOKIE_NAME: "rd_console" });
  const res = await app.api.handle(new Request(`${PUBLIC_URL}/v1/openapi.json`));
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json");
  doc = await res.json();
});

afterAll(() => app.close());

const METHODS = ["get", "put", "post", "delete", "patch"] as const;
const operationOf = (method: string, path: string) => doc.paths[path.replace(/:([^/]+)/g, "{$1}")]?.[method.toLowerCase()];

describe("GET /v1/openapi.json", () => {
  test("is served without credentials and carries version 0.0.0 (spec 9.2)", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("0.0.0");
    expect(doc.servers).toEqual([{ url: PUBLIC_URL }]);
  });

  test("describes every route of the app's route table, and nothing else", () => {
    expect(app.api.routes.length).toBeGreaterThan(40);
    const missing = app.api.routes.filter((r) => !operationOf(r.method, r.path)).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    const described = Object.entries<any>(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path}`));
    expect(described.length).toBe(app.api.routes.length);
  });

  test("validates as OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  test("every operation has a success answer with a content type, and every error answer is the envelope", () => {
    for (const route of app.api.routes) {
      const op = operationOf(route.method, route.path);
      const success = Object.entries<any>(op.responses).filter(([status]) => /^2\d\d$/.test(status));
      expect(success.length, `${route.method} ${route.path}`).toBeGreaterThan(0);
      // 204 No Content is the one success answer without a body (RFC 9110 15.3.5).
      for (const [status, answer] of success)
        expect(Object.keys(answer.content ?? {}).length > 0, `${route.method} ${route.path} ${status}`).toBe(status !== "204");
      expect(op.responses.default).toEqual({ $ref: "#/components/responses/Error" });
      // /health's 503 is its readiness answer (spec 4.1), the one error status that is not the envelope.
      for (const [status, answer] of Object.entries<any>(op.responses))
        if (/^[45]/.test(status) && route.path !== "/health") expect(answer).toEqual({ $ref: "#/components/responses/Error" });
    }
    const envelope = doc.components.schemas.Error;
    expect(envelope.required).toEqual(["error"]);
    expect(envelope.properties.error.required).toEqual(["code", "message", "retryable"]);
    expect(envelope.properties.error.properties.code.enum).toContain("RATE_LIMITED");
  });

  test("names both security schemes of spec 5.1, the cookie by SESSION_COOKIE_NAME", () => {
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "x-api-key" });
    expect(doc.components.securitySchemes.session).toMatchObject({ type: "apiKey", in: "cookie", name: "rd_console" });
  });

  test("states each route's scope, and where a console session or a platform administrator is needed", () => {
    expect(doc.paths["/v1/renders"].post.security).toEqual([{ apiKey: ["render:create"] }, { session: ["render:create"] }]);
    expect(doc.paths["/v1/renders"].post["x-renderd-auth"]).toEqual({ scope: "render:create" });
    // spec 5.3.2: creating a key needs a console session; 5.3.3: listing works with a key.
    expect(doc.paths["/v1/api-keys"].post.security).toEqual([{ session: ["admin:manage"] }]);
    expect(doc.paths["/v1/api-keys"].get.security).toEqual([{ apiKey: ["admin:manage"] }, { session: ["admin:manage"] }]);
    expect(doc.paths["/v1/platform/workspaces"].get["x-renderd-auth"]).toEqual({ platformAdmin: true });
    expect(doc.paths["/v1/platform/workspaces"].get.description).toContain("platform administrator");
    expect(doc.paths["/health"].get.security).toEqual([]);
    expect(doc.paths["/v1/openapi.json"].get.security).toEqual([]);
  });

  test("carries request bodies, path and query parameters from the route schemas", () => {
    const create = doc.paths["/v1/api-keys"].post.requestBody.content["application/json"].schema;
    expect(create.required).toEqual(["name", "scopes"]);
    expect(create.additionalProperties).toBe(false);
    const list = doc.paths["/v1/renders"].get.parameters.map((p: any) => `${p.in}:${p.name}`);
    expect(list).toEqual(["query:limit", "query:cursor", "query:status", "query:test", "query:templateId"]);
    const version = doc.paths["/v1/templates/{id}/versions/{version}"].get.parameters;
    expect(version.map((p: any) => [p.in, p.name, p.required])).toEqual([["path", "id", true], ["path", "version", true]]);
    // Template bodies are checked by the handler; their schema comes through `detail`, the recursive node as a component.
    expect(doc.paths["/v1/templates"].post.requestBody.content["application/json"].schema.properties.content).toEqual({ $ref: "#/components/schemas/CompositionNode" });
    expect(doc.components.schemas.CompositionNode.anyOf.length).toBeGreaterThan(3);
  });

  test("describes every property of the template, document, data schema, value, format, page and render schemas", () => {
    const resolveRef = (schema: any) => (schema?.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema);
    const undescribed: string[] = [];
    const seen = new Set<unknown>();
    const walk = (schema: any, at: string): void => {
      if (!schema || typeof schema !== "object" || seen.has(schema)) return;
      seen.add(schema);
      for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
        if (!property.description && !resolveRef(property)?.description) undescribed.push(`${at}.${name}`);
        walk(resolveRef(property), `${at}.${name}`);
      }
      for (const key of ["anyOf", "oneOf", "allOf"]) (schema[key] ?? []).forEach((branch: any, i: number) => walk(resolveRef(branch), `${at}|${i}`));
      walk(resolveRef(schema.items), `${at}[]`);
      if (typeof schema.additionalProperties === "object") walk(resolveRef(schema.additionalProperties), `${at}{}`);
    };
    const json = (content: any) => content.content["application/json"].schema;
    walk(json(doc.paths["/v1/templates"].post.requestBody), "POST /v1/templates");
    walk(json(doc.paths["/v1/templates/{id}"].patch.requestBody), "PATCH /v1/templates/{id}");
    walk(json(doc.paths["/v1/templates/{id}"].get.responses["200"]), "Template");
    walk(json(doc.paths["/v1/templates/{id}/versions/{version}"].get.responses["200"]), "TemplateVersion");
    walk(json(doc.paths["/v1/template-starters"].get.responses["200"]), "TemplateStarter");
    walk(json(doc.paths["/v1/renders"].post.requestBody), "POST /v1/renders");
    walk(json(doc.paths["/v1/renders/batch"].post.requestBody), "POST /v1/renders/batch");
    walk(json(doc.paths["/v1/templates/{id}/preview"].post.requestBody), "preview");
    walk(json(doc.paths["/v1/renders/{id}"].get.responses["200"]), "Render");
    expect(undescribed).toEqual([]);
    // The walk reached the nodes and the data schema (and through them values, formats and pages).
    for (const name of ["CompositionNode", "DocumentNode", "DataSchema"]) expect(seen.has(doc.components.schemas[name])).toBe(true);
  });

  test("types a render's document as a DocumentNode, integer query parameters as integers and days as dates", () => {
    const render = doc.paths["/v1/renders"].post;
    expect(render.requestBody.content["application/json"].schema.properties.document).toMatchObject({ $ref: "#/components/schemas/DocumentNode" });
    const param = (op: any, name: string) => op.parameters.find((p: any) => p.name === name).schema;
    expect(param(render, "wait")).toMatchObject({ type: "integer", minimum: 0, maximum: 60 });
    expect(param(doc.paths["/v1/renders"].get, "limit")).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });
    expect(param(doc.paths["/v1/templates/{id}/versions/{version}"].get, "version")).toMatchObject({ type: "integer", minimum: 1 });
    expect(param(doc.paths["/v1/usage"].get, "from")).toMatchObject({ type: "string", format: "date" });
    expect(param(doc.paths["/v1/audit-events"].get, "from")).toMatchObject({ type: "string", format: "date-time" });
  });

  test("gives the routes that answer bytes their real content types", () => {
    expect(Object.keys(doc.paths["/results/{id}"].get.responses["200"].content)).toEqual(["application/pdf"]);
    expect(Object.keys(doc.paths["/v1/templates/{id}/preview"].post.responses["200"].content)).toEqual(["application/pdf", "text/html", "application/json"]);
    expect(Object.keys(doc.paths["/v1/reports"].post.responses["200"].content)).toEqual(["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"]);
    expect(Object.keys(doc.paths["/uploads/{id}"].put.requestBody.content)).toContain("image/png");
    expect(doc.paths["/uploads/{id}"].put.parameters.map((p: any) => p.name)).toEqual(["id", "token"]);
    expect(Object.keys(doc.paths["/v1/docs"].get.responses["200"].content)).toEqual(["text/html"]);
    expect(Object.keys(doc.paths["/health"].get.responses)).toContain("503");
  });
});

// A small client typed by openapi-typescript from the document: real paths, bodies and answers; the last call is
// wrong on purpose and must fail to type-check, so a document that typed everything as `any` fails this test.
const CLIENT = `import type { paths } from "./renderd";

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;
type CreateKeyBody = Json<paths["/v1/api-keys"]["post"]["requestBody"]>;
type RenderBody = Json<paths["/v1/renders"]["post"]["requestBody"]>;
type RenderAnswer = Json<paths["/v1/renders/{id}"]["get"]["responses"][200]>;
type ErrorAnswer = Json<paths["/v1/renders/{id}"]["get"]["responses"][404]>;
type ListQuery = NonNullable<paths["/v1/renders"]["get"]["parameters"]["query"]>;

async function call<T>(path: string, init: { method: string; body?: unknown; key: string }): Promise<T> {
  const res = await fetch("http://localhost:8080" + path, {
    method: init.method,
    headers: { "x-api-key": init.key, "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return (await res.json()) as T;
}

export async function example(key: string): Promise<string> {
  const keyBody: CreateKeyBody = { name: "ci", scopes: ["render:create", "render:read"], expiresInDays: 90 };
  const body: RenderBody = { html: "<h1>Hello</h1>", filename: "hello.pdf", metadata: { order: 42 } };
  const render = await call<RenderAnswer>("/v1/renders", { method: "POST", body, key });
  const query: ListQuery = { status: "succeeded", limit: 10 };
  const done: "queued" | "processing" | "succeeded" | "failed" | "cancelled" = render.status;
  const failure: ErrorAnswer = { error: { code: "NOT_FOUND", message: "gone", retryable: false } };
  // @ts-expect-error "render:everything" is not a scope of spec 5.2
  const wrong: CreateKeyBody = { name: "ci", scopes: ["render:everything"] };
  // @ts-expect-error a Render has no field "pdf"
  const missing: string = render.pdf;
  return [keyBody.name, done, query.status, failure.error.code, wrong.name, missing, render.result?.downloadUrl].join(" ");
}
`;

// The same through openapi-fetch, the client openapi-typescript's users reach for: a render of a typed document that
// waits 30 s (an integer, as a client sends it), a page of renders, the starters, and two calls that must not compile.
const FETCH_CLIENT = `import createClient from "openapi-fetch";
import type { components, paths } from "./renderd";

type DocumentNode = components["schemas"]["DocumentNode"];

export async function renderInvoice(key: string): Promise<string | undefined> {
  const client = createClient<paths>({ baseUrl: "http://localhost:8080", headers: { "x-api-key": key } });
  const document: DocumentNode = {
    type: "container",
    tw: "p-8 font-sans",
    children: [
      { type: "text", tagName: "h1", text: "Invoice", tw: "text-2xl font-bold text-blue-700" },
      { type: "image", src: "ast_logo", width: 120 },
    ],
  };
  const { data, error } = await client.POST("/v1/renders", { params: { query: { wait: 30 } }, body: { document, filename: "invoice.pdf" } });
  if (error) return error.error.code;
  const page = await client.GET("/v1/renders", { params: { query: { limit: 10, status: "succeeded" } } });
  const starters = await client.GET("/v1/template-starters");
  // @ts-expect-error wait is an integer, not a string
  await client.POST("/v1/renders", { params: { query: { wait: "30" } }, body: { html: "<p>x</p>" } });
  // @ts-expect-error "paragraph" is no DocumentNode type
  const wrong: DocumentNode = { type: "paragraph", text: "x" };
  return [data?.result?.downloadUrl, page.data?.items.length, starters.data?.items[0]?.source.content?.type, wrong.type].join(" ");
}
`;

describe("a client typed from the document", () => {
  test("type-checks with openapi-typescript's types, and the deliberately wrong calls do not", async () => {
    const dir = join(app.dataDir, "client");
    mkdirSync(dir);
    writeFileSync(join(dir, "renderd.d.ts"), astToString(await openapiTS(structuredClone(doc))));
    writeFileSync(join(dir, "client.ts"), CLIENT);
    writeFileSync(join(dir, "fetch-client.ts"), FETCH_CLIENT);
    // The client lives in DATA_DIR, outside the repository: openapi-fetch is found through `paths`.
    const openapiFetch = resolve(import.meta.dir, "../../node_modules/openapi-fetch/dist/index.d.mts");
    const compilerOptions = { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "bundler", lib: ["ES2022", "DOM"], types: [], paths: { "openapi-fetch": [openapiFetch] } };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["client.ts", "fetch-client.ts"] }));
    const tsc = Bun.spawnSync([resolve(import.meta.dir, "../../node_modules/.bin/tsc"), "-p", join(dir, "tsconfig.json")], { stdout: "pipe", stderr: "pipe" });
    expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe("");
    expect(tsc.exitCode).toBe(0);
  }, 60_000);
});
