/** The fuzz suite: requests generated from GET /v1/openapi.json (test/api/fuzz-values.ts) for every operation, with a
 * key holding every scope or a platform administrator's session so they reach past auth. Every answer must be below
 * 500, every success one the document lists, every error the spec 7.1 envelope with the status src/errors.ts gives
 * its code, and /health must answer throughout. Seeded (FUZZ_SEED) so a failure replays; the counts keep the run well under a minute. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import fc from "fast-check";
import { SCOPES } from "../../src/auth/scopes";
import { ApiError, ERROR_CODES, statusOf, type ErrorCode } from "../../src/errors";
import { PUBLIC_URL, startTestServer, type TestServer } from "../harness";
import { ODD_STRINGS, queryValue, Values } from "./fuzz-values";

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
// FUZZ_CASES raises the count for a longer run by hand.
const CASES_PER_OPERATION = Number(process.env.FUZZ_CASES ?? 100);
// Operations that start Chromium work when a body is accepted get fewer cases, all with bodies the schema refuses.
const RENDERING = new Set(["post /v1/renders", "post /v1/renders/batch", "post /v1/templates/{id}/preview", "post /v1/reports"]);
const RENDERING_CASES = 16;
// Deletions come after the other operations, so those reach the rows made for them; sign-out comes last, since it
// ends the session the others use.
const orderOf = (method: string, path: string) => (`${method} ${path}` === "post /v1/auth/sign-out" ? 2 : method === "delete" ? 1 : 0);
const HEALTH_EVERY_MS = 50;
const HEALTH_WITHIN_MS = 2_000;

let t: TestServer;
let doc: any;
let key: string;
let cookie: string;
const knownIds: string[] = [];

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1" }, undefined, { resolve: async () => ["93.184.216.34"] });
  doc = (await t.call("/v1/openapi.json")).body;
  key = await t.makeKey(t.defaultWorkspaceId, [...SCOPES]);
  cookie = await t.signIn();
  // Real ids, so some generated paths reach real rows; never the fuzz key's own or the default workspace's, whose
  // revocation or suspension would stop the run short.
  const template = await t.call("/v1/templates", { key, body: { name: "fuzz", content: { type: "text", text: "Hello" } } });
  const asset = await t.call("/v1/assets", { key, body: { kind: "image", filename: "a.png", mediaType: "image/png", size: 10, sha256: "0".repeat(64) } });
  const endpoint = await t.call("/v1/webhook-endpoints", { key, body: { url: "https://hooks.example.test/in", eventTypes: ["render.succeeded"] } });
  const spare = await t.call("/v1/api-keys", { cookie, body: { name: "spare", scopes: ["render:read"] } });
  const other = await t.makeWorkspace("fuzz-other");
  const events = await t.call("/v1/audit-events", { key });
  for (const [what, res] of Object.entries({ template, asset, endpoint, spare })) expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(201);
  knownIds.push(template.body.id, asset.body.id, endpoint.body.id, spare.body.id, other.id, events.body.items[0].id);
});

afterAll(async () => {
  await t?.stop();
});

interface Case {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Blob;
}

const RAW_BODIES = ["", "{", "not json", "[]", "null", '{"a":', "\u0000", '{"__proto__":{"polluted":true}}'];

function operations(): Array<{ method: string; path: string; op: any }> {
  const all = Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.entries<any>(item).map(([method, op]) => ({ method, path, op })));
  return all.sort((a, b) => orderOf(a.method, a.path) - orderOf(b.method, b.path));
}

// A lone surrogate has no UTF-8 form: it goes as the bytes of one, which no decoder accepts.
function encodeSegment(segment: string): string {
  return segment.isWellFormed() ? encodeURIComponent(segment) : "%ED%A0%80";
}

// Now and then a workspace chosen by header (another one's, or junk) and a request id of the caller's own.
const headerValue = fc.oneof(fc.constantFrom(...ODD_STRINGS.filter((v) => /^[\x20-\x7e]*$/.test(v))), fc.string({ unit: "grapheme-ascii", maxLength: 40 }));
const extraHeaders = fc.record({ "x-workspace-id": headerValue, "x-request-id": headerValue }, { requiredKeys: [] }).chain((headers) =>
  fc.oneof({ arbitrary: fc.constant({}), weight: 4 }, { arbitrary: fc.constant(headers), weight: 1 }),
);

/** casesOf draws the requests for one operation. */
function casesOf(values: Values, method: string, path: string, op: any, count: number): Case[] {
  const params: any[] = op.parameters ?? [];
  const security: any[] = op.security ?? [];
  const rendering = RENDERING.has(`${method} ${path}`);
  const pathArb = fc
    .tuple(
      ...params
        .filter((p) => p.in === "path")
        .map((p) =>
          fc.oneof(
            { arbitrary: fc.constantFrom(...knownIds), weight: 3 },
            { arbitrary: values.valid(p.schema).map(String), weight: 1 },
            { arbitrary: fc.constantFrom(...ODD_STRINGS), weight: 1 },
          ),
        ),
    )
    .map((segments) => {
      let i = 0;
      return path.replace(/\{[^}]+\}/g, () => encodeSegment(String(segments[i++])));
    });
  const queryArb = fc
    .tuple(
      ...params.filter((p) => p.in === "query").map((p) => (p.required ? queryValue(values, p.schema) : fc.option(queryValue(values, p.schema), { freq: 2, nil: undefined })).map((v) => [p.name, v] as const)),
      // Now and then a parameter the operation does not take.
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 7 }, { arbitrary: fc.constantFrom("unknown", "limit", "__proto__"), weight: 1 }).map((name) => [name, "1"] as const),
    )
    .map((pairs) => {
      const search = new URLSearchParams();
      for (const [name, value] of pairs) if (name !== undefined && value !== undefined) search.append(name, value);
      return search.size > 0 ? `?${search}` : "";
    });
  const credentials = security.some((s) => "apiKey" in s) ? ["key", "session"] : security.length ? ["session"] : ["none"];
  const who = fc.oneof({ arbitrary: fc.constantFrom(...credentials), weight: 7 }, { arbitrary: fc.constantFrom("none", "key"), weight: 1 });
  const content = op.requestBody?.content ?? {};
  const jsonSchema = content["application/json"]?.schema;
  const fileTypes = Object.keys(content).filter((type) => type !== "application/json");
  let bodyArb: fc.Arbitrary<{ body?: string | Blob; type?: string }>;
  if (jsonSchema && rendering) bodyArb = values.refused(jsonSchema).map((v) => ({ body: JSON.stringify(v), type: "application/json" }));
  else if (jsonSchema)
    bodyArb = fc.oneof(
      { arbitrary: values.valid(jsonSchema).map((v) => ({ body: JSON.stringify(v), type: "application/json" })), weight: 3 },
      { arbitrary: values.broken(jsonSchema).map((v) => ({ body: JSON.stringify(v), type: "application/json" })), weight: 2 },
      { arbitrary: fc.constantFrom(...RAW_BODIES).map((raw) => ({ body: raw, type: "application/json" })), weight: 1 },
      { arbitrary: fc.constantFrom("text/plain", "application/x-www-form-urlencoded").map((type) => ({ body: "a=1", type })), weight: 1 },
    );
  else if (fileTypes.length) bodyArb = fc.tuple(fc.uint8Array({ maxLength: 64 }), fc.constantFrom(...fileTypes)).map(([bytes, type]) => ({ body: new Blob([bytes]), type }));
  else if (method === "get") bodyArb = fc.constant({});
  else bodyArb = fc.oneof(fc.constant({}), fc.constantFrom(...RAW_BODIES).map((raw) => ({ body: raw, type: "application/json" })));
  return fc.sample(
    fc.record({ path: pathArb, query: queryArb, who, body: bodyArb, extra: extraHeaders }).map(({ path: p, query, who: w, body, extra }) => {
      const headers: Record<string, string> = { ...extra };
      if (w === "key") headers["x-api-key"] = key;
      if (w === "session") Object.assign(headers, { cookie, origin: PUBLIC_URL });
      if (body.type) headers["content-type"] = body.type;
      return { method: method.toUpperCase(), path: p + query, headers, body: body.body };
    }),
    { numRuns: count, seed: SEED },
  );
}

const RETRYABLE = new Set(ERROR_CODES.filter((code) => new ApiError(code, "").retryable));

/** envelopeProblem answers what is wrong with an error answer, or null when it is the spec 7.1 envelope. */
function envelopeProblem(res: Response, body: any): string | null {
  if (!res.headers.get("content-type")?.startsWith("application/json")) return `content-type ${res.headers.get("content-type")}`;
  if (!body || typeof body !== "object" || Object.keys(body).join() !== "error") return "not {error}";
  const { code, message, retryable, details, renderId, ...rest } = body.error ?? {};
  if (Object.keys(rest).length) return `unknown fields ${Object.keys(rest)}`;
  if (!ERROR_CODES.includes(code)) return `unknown code ${code}`;
  const expected = res.status === 405 && code === "BAD_REQUEST" ? 405 : statusOf(code as ErrorCode);
  if (res.status !== expected) return `status ${res.status} for ${code}, src/errors.ts says ${expected}`;
  if (typeof message !== "string" || message.length === 0) return "no message";
  if (retryable !== RETRYABLE.has(code)) return `retryable ${retryable} for ${code}`;
  if (renderId !== undefined && typeof renderId !== "string") return "renderId not a string";
  if (details === undefined) return null;
  if (!Array.isArray(details) || details.length === 0) return "details not a non-empty array";
  for (const d of details) {
    if (typeof d?.message !== "string" || (d.path !== undefined && (typeof d.path !== "string" || !/^(\/|$)/.test(d.path))) || Object.keys(d).some((k) => k !== "path" && k !== "message"))
      return `bad detail ${JSON.stringify(d)}`;
  }
  return null;
}

// The document's answers are checked against what the server sends: a 2xx must be a status the operation lists,
// with a listed content type, and a JSON body must match its schema (template answers are only declared in `detail`).
const ajv = new Ajv2020({ strict: false, validateFormats: false });
const validators = new Map<object, ValidateFunction>();

/** answerProblem answers how a 2xx answer departs from the operation's description, or null when it does not. */
function answerProblem(op: any, res: Response, text: string): string | null {
  const described = op.responses?.[String(res.status)];
  if (!described) return `status ${res.status} is not in the document`;
  const type = res.headers.get("content-type")?.split(";")[0] ?? "";
  if (!Object.keys(described.content ?? {}).some((listed) => listed === type)) return `content-type ${type} is not in the document`;
  const schema = described.content[type].schema;
  if (type !== "application/json" || !schema) return null;
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile({ ...schema, components: doc.components })));
  return validate(JSON.parse(text)) ? null : `answer does not match the document: ${ajv.errorsText(validate.errors)}`;
}

test("every generated request answers below 500 as documented, errors in the envelope, with /health answering throughout", async () => {
  const values = new Values(doc.components.schemas);
  const failures: string[] = [];
  const health = { polls: 0, slowestMs: 0, bad: [] as string[] };
  let fuzzing = true;
  const poller = (async () => {
    while (fuzzing) {
      const started = performance.now();
      const res = await fetch(`${t.url}/health`).catch((e: Error) => e);
      const ms = performance.now() - started;
      health.polls += 1;
      health.slowestMs = Math.max(health.slowestMs, ms);
      if (res instanceof Error || res.status !== 200) health.bad.push(res instanceof Error ? res.message : `status ${res.status}`);
      await Bun.sleep(HEALTH_EVERY_MS);
    }
  })();

  const started = performance.now();
  let requests = 0;
  const statuses = new Map<number, number>();
  const reached = new Set<string>();
  const ops = operations();
  for (const { method, path, op } of ops) {
    for (const c of casesOf(values, method, path, op, RENDERING.has(`${method} ${path}`) ? RENDERING_CASES : CASES_PER_OPERATION)) {
      requests += 1;
      const res = await fetch(t.url + c.path, { method: c.method, headers: c.headers, body: c.body });
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status < 300) reached.add(`${method} ${path}`);
      const where = `${c.method} ${c.path.slice(0, 120)} ${JSON.stringify(c.headers["content-type"] ?? "")} ${String(c.body ?? "").slice(0, 160)}`;
      if (res.status >= 500) failures.push(`${where} → ${res.status} ${text.slice(0, 200)}`);
      else if (res.status < 300) {
        // An empty segment (`/v1/templates/`) is answered by the route without it, which another operation describes.
        const problem = /\/(\?|$)/.test(c.path) ? null : answerProblem(op, res, text);
        if (problem) failures.push(`${where} → ${res.status}: ${problem}: ${text.slice(0, 200)}`);
      } else if (res.status >= 400) {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        const problem = envelopeProblem(res, body);
        if (problem) failures.push(`${where} → ${res.status}: ${problem}: ${text.slice(0, 200)}`);
      }
    }
  }
  fuzzing = false;
  await poller;
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `fuzz: seed ${SEED}, ${ops.length} operations, ${requests} requests in ${seconds.toFixed(1)} s; /health ${health.polls} polls, slowest ${health.slowestMs.toFixed(0)} ms`,
  );
  console.log(`fuzz: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}; ${reached.size} operations answered 2xx`);
  console.log(`fuzz: never 2xx: ${ops.map((o) => `${o.method} ${o.path}`).filter((o) => !reached.has(o)).join(", ")}`);
  expect(failures).toEqual([]);
  // The requests must get past authentication and validation to the services, or the run proves little.
  expect(reached.size).toBeGreaterThanOrEqual(25);
  expect(health.bad).toEqual([]);
  expect(health.polls).toBeGreaterThan(0);
  expect(health.slowestMs).toBeLessThan(HEALTH_WITHIN_MS);
}, 120_000);
