import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";
import { registration, samples, uploadSample, type Sample } from "../fixtures/assets";
import { ApiError } from "../../src/errors";
import { CLI_ACTOR } from "../../src/auth/actor";
import { templateForRender } from "../../src/modules/templates/for-render";
import { createWorkspace } from "../../src/modules/workspaces/service";

let t: TestServer;
let key: string; // every template scope, assets and audit
let readKey: string;
let writeKey: string;
let other: { id: string; key: string }; // a second workspace
let all: Sample[];
const sample = (filename: string) => all.find((s) => s.filename === filename)!;
const asset: Record<"png" | "svg" | "font" | "css", string> = { png: "", svg: "", font: "", css: "" };
let workspaces = 0;

// A workspace without members: faster than t.makeWorkspace, which hashes a password.
async function freshWorkspace(name: string): Promise<string> {
  return (await t.server.store.tx((tx) => createWorkspace(tx, t.clock, { actor: CLI_ACTOR, requestId: "test-setup" }, { name, slug: `${name.toLowerCase()}-${++workspaces}` }))).id;
}

beforeAll(async () => {
  t = await startTestServer();
  key = await t.makeKey(t.defaultWorkspaceId, ["template:read", "template:write", "template:publish", "asset:manage", "audit:read"]);
  readKey = await t.makeKey(t.defaultWorkspaceId, ["template:read"]);
  writeKey = await t.makeKey(t.defaultWorkspaceId, ["template:read", "template:write"]);
  const ws = await freshWorkspace("Other");
  other = { id: ws, key: await t.makeKey(ws, ["template:read", "template:write", "template:publish", "asset:manage"]) };
  all = await samples();
  asset.png = (await uploadSample(t, key, sample("pixel.png"))).id;
  asset.svg = (await uploadSample(t, key, sample("logo.svg"))).id;
  asset.font = (await uploadSample(t, key, sample("brand.woff2"))).id;
  asset.css = (await uploadSample(t, key, sample("brand.css"))).id;
});
afterAll(() => t.stop());

const dataSchema = {
  type: "object",
  properties: {
    title: { type: "string" },
    items: { type: "array", items: { type: "object", properties: { name: { type: "string" }, price: { type: "number" } } } },
  },
};

const invoice = () => ({
  name: "Invoice",
  content: {
    type: "container",
    children: [
      { type: "text", text: { path: ["title"] } },
      { type: "repeat", source: { path: ["items"] }, children: [{ type: "component", componentId: "line" }] },
    ],
  },
  components: { line: { type: "text", text: { parts: [{ path: ["name"] }, " ", { path: ["price"], format: { type: "currency", currency: "EUR" } }] } } },
  dataSchema,
  stylesheet: "body { font-family: Brand; }",
  page: { size: "A4", orientation: "portrait", margin: { top: "20mm" } },
  footer: { type: "text", text: { path: ["$page", "number"] } },
});

const create = (body: unknown, as = key) => t.call("/v1/templates", { key: as, body });

async function created(body: unknown = invoice(), as = key): Promise<any> {
  const res = await create(body, as);
  expect(res.status).toBe(201);
  return res.body;
}

async function auditOf(resourceId: string): Promise<any[]> {
  const res = await t.call(`/v1/audit-events?resourceId=${resourceId}`, { key });
  expect(res.status).toBe(200);
  return res.body.items;
}

describe("POST /v1/templates", () => {
  test("answers 201 with the template: its draft, no description and no published version", async () => {
    const body = invoice();
    const res = await create(body);
    expect(res.status).toBe(201);
    const { name, ...draft } = body;
    expect(res.body).toEqual({
      id: expect.stringMatching(/^tpl_/),
      name,
      description: null,
      latestVersion: null,
      draft,
      createdAt: t.clock.now().toISOString(),
      updatedAt: t.clock.now().toISOString(),
    });
    const events = await auditOf(res.body.id);
    expect(events.map((e) => e.action)).toEqual(["template.created"]);
    expect(events[0].resourceName).toBe("Invoice");
  });

  test("a minimal template is a name and content; a description is kept", async () => {
    const res = await create({ name: "Note", description: "A short note", content: { type: "text", text: "Hello" } });
    expect(res.status).toBe(201);
    expect(res.body.description).toBe("A short note");
    expect(res.body.draft).toEqual({ content: { type: "text", text: "Hello" } });
  });

  test.each([
    ["an extra field", { ...invoice(), extra: 1 }, "/extra", "is not an allowed field"],
    ["a field of a node that is not its own", { name: "x", content: { type: "container", children: [{ type: "text", text: "a" }, { type: "text", txt: "b" }] } }, "/content/children/1/txt", "is not an allowed field"],
    ["a node of no known type", { name: "x", content: { type: "container", children: [{ type: "paragraph", text: "a" }] } }, "/content/children/0/type", "must be one of: container, text, image, repeat, table, component"],
    ["a node without its required field", { name: "x", content: { type: "repeat", source: { path: ["items"] } } }, "/content/children", "is required"],
    ["a bad value inside a reference", { name: "x", content: { type: "text", text: { path: ["title"], scope: "everywhere" } } }, "/content/text/scope", "must be one of: root, current"],
    ["a number as an image's assetId", { name: "x", content: { type: "image", assetId: 5 } }, "/content/assetId", "must be a string or an object"],
    ["a bad component node", { name: "x", content: { type: "text", text: "a" }, components: { card: { type: "text" } } }, "/components/card/text", "is required"],
    ["a component id that is no Identifier", { name: "x", content: { type: "text", text: "a" }, components: { "no good": { type: "text", text: "a" } } }, "/components/no good", undefined],
    ["a bad data schema type", { name: "x", content: { type: "text", text: "a" }, dataSchema: { type: "object", properties: { a: { type: "date" } } } }, "/dataSchema/properties/a/type", undefined],
    ["an unknown page size", { name: "x", content: { type: "text", text: "a" }, page: { size: "A6" } }, "/page/size", undefined],
    ["an empty name", { name: "", content: { type: "text", text: "a" } }, "/name", undefined],
    ["a name over 200", { name: "n".repeat(201), content: { type: "text", text: "a" } }, "/name", undefined],
    ["no content", { name: "x" }, "/content", "is required, unless a starter is named"],
    ["a stylesheet over 1 MB", { name: "x", content: { type: "text", text: "a" }, stylesheet: "a".repeat(1_000_001) }, "/stylesheet", undefined],
    ["the same asset twice", { name: "x", content: { type: "text", text: "a" }, assetIds: ["ast_a", "ast_a"] }, "/assetIds", undefined],
    ["51 assets", { name: "x", content: { type: "text", text: "a" }, assetIds: Array.from({ length: 51 }, (_, i) => `ast_${i}`) }, "/assetIds", undefined],
  ])("%s is 400 BAD_REQUEST pointing at the field", async (_, body, path, message) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("BAD_REQUEST");
    expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
    if (message) expect(res.body.error.details).toContainEqual({ path, message });
  });

  test("a bad node deep in the tree is found; a tree deeper than the body may nest is 400, not 500", async () => {
    const nest = (depth: number, leaf: unknown) => {
      let node = leaf;
      for (let i = 0; i < depth; i++) node = { type: "container", children: [{ type: "text", text: "ok" }, node] };
      return node;
    };
    // 31 containers are 2 JSON levels each: with the body, the content and the leaf, 64 levels (MAX_JSON_DEPTH).
    const res = await create({ name: "Deep", content: nest(31, { type: "text", text: "a", colour: "red" }) });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: "/content" + "/children/1".repeat(31) + "/colour", message: "is not an allowed field" }]);
    const deeper = await create({ name: "Deep", content: nest(32, { type: "text", text: "a" }) });
    expect(deeper.status).toBe(400);
    expect(deeper.body.error.details).toEqual([{ path: "", message: "nests deeper than 64 levels" }]);

    // Built as text: JSON.stringify itself overflows the stack on such a tree.
    const depth = 100_000;
    const raw = `{"name":"Deep","content":${'{"type":"container","children":['.repeat(depth)}{"type":"text","text":"a"}${"]}".repeat(depth)}}`;
    // As many bytes, one level past the limit and then blank: what merely sending and reading such a body costs on this
    // machine, before and after, so that the bound holds its meaning on a slow one.
    const justPast = `{"name":"Deep","content":${'{"type":"container","children":['.repeat(32)}`;
    const sameSize = justPast + " ".repeat(raw.length - justPast.length);
    const timed = async (body: string) => {
      const started = performance.now();
      const res = await t.call("/v1/templates", { key, raw: body, method: "POST" });
      return { res, ms: performance.now() - started };
    };
    const before = await timed(sameSize);
    const absurd = await timed(raw);
    const after = await timed(sameSize);
    for (const reference of [before, after]) expect(reference.res.status).toBe(400);
    expect(absurd.ms).toBeLessThan(2 * Math.max(before.ms, after.ms) + 250);
    expect(absurd.res.status).toBe(400);
    expect(absurd.res.body.error.details).toEqual([{ path: "", message: "nests deeper than 64 levels" }]);
  });

  test("a body that is not an object is 400", async () => {
    const res = await t.call("/v1/templates", { key, body: [1] });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: "", message: "must be object" }]);
  });

  test.each([
    ["an unknown component", { content: { type: "container", children: [{ type: "text", text: "a" }, { type: "component", componentId: "nope" }] } }, "/content/children/1/componentId", 'unknown component "nope"'],
    ["a reference into no schema property", { content: { type: "text", text: { path: ["missing"] } }, dataSchema }, "/content/text/path", '["missing"] is not a property of the data schema'],
    [
      "a cycle of components",
      {
        content: { type: "component", componentId: "a" },
        components: { a: { type: "container", children: [{ type: "component", componentId: "b" }] }, b: { type: "component", componentId: "a" } },
      },
      "/components/b/componentId",
      "component cycle: a → b → a",
    ],
    ["a page number in the body", { content: { type: "text", text: { path: ["$page", "number"] } } }, "/content/text/path", "page values are only available in the header and footer"],
  ])("%s is 422 TEMPLATE_INVALID pointing at the node, and nothing is written", async (_, draft, path, message) => {
    const before = (await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM templates"))!.n;
    const res = await create({ name: "Broken", ...draft });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("TEMPLATE_INVALID");
    expect(res.body.error.details).toContainEqual({ path, message });
    expect((await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM templates"))!.n).toBe(before);
  });

  test("a key without template:write is 403; no key is 401", async () => {
    expect((await create(invoice(), readKey)).status).toBe(403);
    expect((await t.call("/v1/templates", { body: invoice() })).status).toBe(401);
  });
});

describe("assets of a template", () => {
  const text = { type: "text", text: "a" };

  test("uploaded fonts and stylesheets of the workspace are accepted in assetIds", async () => {
    const tpl = await created({ name: "Branded", content: text, assetIds: [asset.font, asset.css] });
    expect(tpl.draft.assetIds).toEqual([asset.font, asset.css]);
  });

  test.each([
    ["an image asset", () => asset.png, "is a image asset; assetIds takes stylesheets and fonts"],
    ["an unknown id", () => "ast_unknown", "was not found"],
  ])("%s in assetIds is 422 TEMPLATE_INVALID at /assetIds/<i>", async (_, id, message) => {
    const res = await create({ name: "Branded", content: text, assetIds: [asset.font, id()] });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("TEMPLATE_INVALID");
    expect(res.body.error.details).toEqual([{ path: "/assetIds/1", message: `asset ${id()} ${message}` }]);
  });

  test("another workspace's font reads as not found; a registered font not yet uploaded is refused", async () => {
    const theirs = (await uploadSample(t, other.key, sample("brand.ttf"))).id;
    const pending = await t.call("/v1/assets", { key, body: registration(sample("brand.otf")) });
    expect(pending.status).toBe(201);
    const res = await create({ name: "Branded", content: text, assetIds: [theirs, pending.body.id] });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { path: "/assetIds/0", message: `asset ${theirs} was not found` },
      { path: "/assetIds/1", message: `asset ${pending.body.id} has not been uploaded yet` },
    ]);
  });

  test("image nodes take uploaded images and SVGs; another kind is refused at the node's assetId, wherever it is", async () => {
    const ok = await created({
      name: "Logo",
      content: { type: "container", children: [text, { type: "image", assetId: asset.png }, { type: "image", assetId: { path: ["logo"] } }] },
      header: { type: "image", assetId: asset.svg, width: 40 },
    });
    expect(ok.draft.header.assetId).toBe(asset.svg);

    const res = await create({
      name: "Logo",
      content: { type: "container", children: [text, text, { type: "image", assetId: asset.font }] },
      components: { logo: { type: "repeat", source: { path: ["x"] }, children: [], empty: [{ type: "image", assetId: "ast_gone" }] } },
      footer: { type: "image", assetId: asset.css },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { path: "/content/children/2/assetId", message: `asset ${asset.font} is a font asset; an image node takes an image or svg asset` },
      { path: "/footer/assetId", message: `asset ${asset.css} is a stylesheet asset; an image node takes an image or svg asset` },
      { path: "/components/logo/empty/0/assetId", message: "asset ast_gone was not found" },
    ]);
  });
});

describe("GET /v1/templates", () => {
  test("lists the workspace's templates newest first, without drafts, a page at a time", async () => {
    const k = await t.makeKey(await freshWorkspace("Lister"), ["template:read", "template:write"]);
    const a = await created({ name: "A", content: { type: "text", text: "a" } }, k);
    t.clock.advance(1000);
    const b = await created({ name: "B", content: { type: "text", text: "b" } }, k);
    const first = await t.call("/v1/templates?limit=1", { key: k });
    expect(first.status).toBe(200);
    expect(first.body.items).toEqual([{ id: b.id, name: "B", description: null, latestVersion: null, createdAt: b.createdAt, updatedAt: b.updatedAt }]);
    const second = await t.call(`/v1/templates?limit=1&cursor=${first.body.nextCursor}`, { key: k });
    expect(second.body.items.map((i: any) => i.id)).toEqual([a.id]);
    expect(second.body.nextCursor).toBeUndefined();
  });

  test("GET one answers the draft", async () => {
    const tpl = await created();
    const res = await t.call(`/v1/templates/${tpl.id}`, { key: readKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(tpl);
  });

  test("another workspace's template is 404 on every route, and unchanged", async () => {
    const tpl = await created();
    const paths: [string, string, unknown?][] = [
      ["GET", `/v1/templates/${tpl.id}`],
      ["PATCH", `/v1/templates/${tpl.id}`, { name: "Mine" }],
      ["DELETE", `/v1/templates/${tpl.id}`],
      ["POST", `/v1/templates/${tpl.id}/publish`],
      ["GET", `/v1/templates/${tpl.id}/versions`],
      ["GET", `/v1/templates/${tpl.id}/versions/1`],
    ];
    for (const [method, path, body] of paths) {
      const res = await t.call(path, { key: other.key, method, body });
      expect([method, path, res.status, res.body.error.code]).toEqual([method, path, 404, "NOT_FOUND"]);
      expect(res.body.error.message).toBe(`Template ${tpl.id} was not found.`);
    }
    const list = await t.call("/v1/templates", { key: other.key });
    expect(list.body.items.map((i: any) => i.id)).not.toContain(tpl.id);
    expect((await t.call(`/v1/templates/${tpl.id}`, { key })).body).toEqual(tpl);
  });
});

describe("PATCH /v1/templates/:id", () => {
  test("replaces the fields sent, null removes an optional one, and the rest stays", async () => {
    const tpl = await created();
    t.clock.advance(1000);
    const res = await t.call(`/v1/templates/${tpl.id}`, {
      key: writeKey,
      method: "PATCH",
      body: { name: "Invoice v2", description: "Monthly", stylesheet: null, footer: null, page: { size: "Letter" } },
    });
    expect(res.status).toBe(200);
    const { stylesheet: _s, footer: _f, page: _p, ...kept } = tpl.draft;
    expect(res.body).toEqual({ ...tpl, name: "Invoice v2", description: "Monthly", draft: { ...kept, page: { size: "Letter" } }, updatedAt: t.clock.now().toISOString() });
    const events = await auditOf(tpl.id);
    expect(events[0].action).toBe("template.updated");
    expect(events[0].metadata).toEqual({ fields: "name description stylesheet page footer" });
    const removed = await t.call(`/v1/templates/${tpl.id}`, { key, method: "PATCH", body: { description: null } });
    expect(removed.body.description).toBeNull();
  });

  test("the merged draft must compile: a data schema without the referenced property is 422 and nothing changes", async () => {
    const tpl = await created();
    const res = await t.call(`/v1/templates/${tpl.id}`, { key, method: "PATCH", body: { dataSchema: { type: "object", properties: { title: { type: "string" } } } } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("TEMPLATE_INVALID");
    expect(res.body.error.details).toContainEqual({ path: "/content/children/1/source/path", message: '["items"] is not a property of the data schema' });
    expect((await t.call(`/v1/templates/${tpl.id}`, { key })).body).toEqual(tpl);
  });

  test("content cannot be removed, fields are checked as on creation, and a PATCH that changes nothing writes no event", async () => {
    const tpl = await created();
    const nulled = await t.call(`/v1/templates/${tpl.id}`, { key, method: "PATCH", body: { content: null } });
    expect(nulled.status).toBe(400);
    expect(nulled.body.error.details[0].path).toBe("/content");
    const bad = await t.call(`/v1/templates/${tpl.id}`, { key, method: "PATCH", body: { header: { type: "image", assetId: asset.png, width: -1 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("/header/width");
    const same = await t.call(`/v1/templates/${tpl.id}`, { key, method: "PATCH", body: { name: tpl.name, content: tpl.draft.content } });
    expect(same.body).toEqual(tpl);
    expect((await auditOf(tpl.id)).map((e) => e.action)).toEqual(["template.created"]);
  });

  test("a key with template:read only cannot edit", async () => {
    const tpl = await created();
    const res = await t.call(`/v1/templates/${tpl.id}`, { key: readKey, method: "PATCH", body: { name: "x" } });
    expect(res.status).toBe(403);
  });
});

describe("ETag and If-Match", () => {
  const patch = (id: string, body: unknown, ifMatch?: string) =>
    t.call(`/v1/templates/${id}`, { key, method: "PATCH", body, headers: ifMatch === undefined ? {} : { "if-match": ifMatch } });

  test("GET, POST and PATCH answer an ETag that changes with every write of the name, description or draft, and not with a publish", async () => {
    const res = await create(invoice());
    const first = res.headers.get("etag")!;
    expect(first).toMatch(/^"[0-9a-f]{32}"$/);
    const read = await t.call(`/v1/templates/${res.body.id}`, { key });
    expect(read.headers.get("etag")).toBe(first);
    const tags = [first];
    for (const body of [{ name: "Renamed" }, { description: "Monthly" }, { stylesheet: "body { color: red; }" }, { stylesheet: "body { color: blue; }" }]) {
      const changed = await patch(res.body.id, body, tags.at(-1));
      expect(changed.status).toBe(200);
      tags.push(changed.headers.get("etag")!);
    }
    expect(new Set(tags).size).toBe(tags.length);
    // A PATCH that changes nothing, and a publish, leave the state an editor made its change from as it was.
    expect((await patch(res.body.id, { name: "Renamed" })).headers.get("etag")).toBe(tags.at(-1)!);
    expect((await t.call(`/v1/templates/${res.body.id}/publish`, { key, method: "POST" })).status).toBe(201);
    expect((await t.call(`/v1/templates/${res.body.id}`, { key })).headers.get("etag")).toBe(tags.at(-1)!);
  });

  test("a PATCH with a stale If-Match is 409 CONFLICT naming who changed the draft and when, and nothing changes", async () => {
    const tpl = await created();
    const stale = (await t.call(`/v1/templates/${tpl.id}`, { key })).headers.get("etag")!;
    t.clock.advance(60_000);
    const theirs = await t.call(`/v1/templates/${tpl.id}`, { key: writeKey, method: "PATCH", body: { stylesheet: "theirs {}" } });
    t.clock.advance(60_000);
    const [theirEvent] = await auditOf(tpl.id);
    const mine = await patch(tpl.id, { stylesheet: "mine {}" }, stale);
    expect(mine.status).toBe(409);
    expect(mine.body.error.code).toBe("CONFLICT");
    expect(mine.body.error.message).toBe(
      `Template ${tpl.id} has changed since you read it (If-Match names an earlier state): last changed by API key "test key" (${theirEvent.actorId}) at ${theirs.body.updatedAt}. ` +
        `Nothing was saved; read it again (GET /v1/templates/${tpl.id}) and apply your change to its draft as it is now, or send the PATCH without If-Match to overwrite it.`,
    );
    expect(mine.headers.get("etag")).toBe(theirs.headers.get("etag"));
    expect((await t.call(`/v1/templates/${tpl.id}`, { key })).body).toEqual(theirs.body);
    // A weak tag never matches (strong comparison); the current tag among others, or *, does; without If-Match it overwrites.
    expect((await patch(tpl.id, { stylesheet: "mine {}" }, `W/${theirs.headers.get("etag")}`)).status).toBe(409);
    const listed = await patch(tpl.id, { stylesheet: "mine {}" }, `${stale}, ${theirs.headers.get("etag")}`);
    expect(listed.status).toBe(200);
    expect((await patch(tpl.id, { stylesheet: "any {}" }, "*")).status).toBe(200);
    expect((await patch(tpl.id, { stylesheet: "last {}" })).body.draft.stylesheet).toBe("last {}");
  });

  test("an If-Match that is not quoted ETags is 400; another workspace's template is 404 whatever the tag", async () => {
    const tpl = await created();
    const bare = await patch(tpl.id, { name: "x" }, "abc");
    expect(bare.status).toBe(400);
    expect(bare.body.error.details).toEqual([{ path: "/if-match", message: "must be * or quoted ETags separated by commas" }]);
    const etag = (await t.call(`/v1/templates/${tpl.id}`, { key })).headers.get("etag")!;
    const foreign = await t.call(`/v1/templates/${tpl.id}`, { key: other.key, method: "PATCH", body: { name: "x" }, headers: { "if-match": etag } });
    expect(foreign.status).toBe(404);
  });

  test("of two PATCHes sent at once from the same ETag, exactly one is saved and the other is 409", async () => {
    const tpl = await created();
    const etag = (await t.call(`/v1/templates/${tpl.id}`, { key })).headers.get("etag")!;
    t.clock.advance(1000);
    const answers = await Promise.all(["a {}", "b {}"].map((stylesheet) => patch(tpl.id, { stylesheet }, etag)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const saved = answers.find((a) => a.status === 200)!;
    expect((await t.call(`/v1/templates/${tpl.id}`, { key })).body.draft.stylesheet).toBe(saved.body.draft.stylesheet);
    expect((await auditOf(tpl.id)).map((e) => e.action)).toEqual(["template.updated", "template.created"]);
  });
});

describe("publish and versions", () => {
  test("publish freezes the draft as version 1, then 2; a later edit leaves the versions as they were", async () => {
    const tpl = await created();
    t.clock.advance(1000);
    const v1 = await t.call(`/v1/templates/${tpl.id}/publish`, { key, method: "POST" });
    expect(v1.status).toBe(201);
    expect(v1.body).toEqual({ id: expect.stringMatching(/^tv_/), templateId: tpl.id, version: 1, source: tpl.draft, publishedAt: t.clock.now().toISOString() });
    expect((await t.call(`/v1/templates/${tpl.id}`, { key })).body.latestVersion).toBe(1);

    const edited = await t.call(`/v1/templates/${tpl.id}`, { key, method: "PATCH", body: { stylesheet: "body { color: red; }" } });
    expect(edited.status).toBe(200);
    expect(edited.body.latestVersion).toBe(1);
    expect((await t.call(`/v1/templates/${tpl.id}/versions/1`, { key: readKey })).body).toEqual(v1.body);

    t.clock.advance(1000);
    const v2 = await t.call(`/v1/templates/${tpl.id}/publish`, { key, method: "POST" });
    expect(v2.body.version).toBe(2);
    expect(v2.body.source.stylesheet).toBe("body { color: red; }");

    const list = await t.call(`/v1/templates/${tpl.id}/versions`, { key: readKey });
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([
      { id: v2.body.id, templateId: tpl.id, version: 2, publishedAt: v2.body.publishedAt },
      { id: v1.body.id, templateId: tpl.id, version: 1, publishedAt: v1.body.publishedAt },
    ]);
    const page = await t.call(`/v1/templates/${tpl.id}/versions?limit=1`, { key: readKey });
    expect(page.body.items.map((v: any) => v.version)).toEqual([2]);
    const rest = await t.call(`/v1/templates/${tpl.id}/versions?limit=1&cursor=${page.body.nextCursor}`, { key: readKey });
    expect(rest.body.items.map((v: any) => v.version)).toEqual([1]);

    const events = await auditOf(tpl.id);
    expect(events.map((e) => e.action)).toEqual(["template.published", "template.updated", "template.published", "template.created"]);
    expect(events[0].metadata).toEqual({ version: 2, versionId: v2.body.id });
  });

  test("a version that does not exist is 404; a version that is not a whole number from 1 is 400", async () => {
    const tpl = await created();
    const missing = await t.call(`/v1/templates/${tpl.id}/versions/7`, { key });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe(`Template ${tpl.id} has no version 7.`);
    for (const v of ["0", "-1", "1.5", "x"]) {
      const res = await t.call(`/v1/templates/${tpl.id}/versions/${v}`, { key });
      expect([v, res.status, res.body.error.details[0].path]).toEqual([v, 400, "/version"]);
    }
  });

  test("only template:publish publishes; template:read lists versions", async () => {
    const tpl = await created();
    expect((await t.call(`/v1/templates/${tpl.id}/publish`, { key: writeKey, method: "POST" })).status).toBe(403);
    expect((await t.call(`/v1/templates/${tpl.id}/publish`, { key: readKey, method: "POST" })).status).toBe(403);
    expect((await t.call(`/v1/templates/${tpl.id}/versions`, { key: readKey })).status).toBe(200);
    expect((await t.call(`/v1/templates/${tpl.id}`, { key })).body.latestVersion).toBeNull();
  });

  test("publish checks the draft again: an asset deleted since is 422 and no version is made", async () => {
    const font = (await uploadSample(t, key, sample("brand.ttf"))).id;
    const tpl = await created({ name: "Fonts", content: { type: "text", text: "a" }, assetIds: [font] });
    expect((await t.call(`/v1/assets/${font}`, { key, method: "DELETE" })).status).toBe(200);
    const res = await t.call(`/v1/templates/${tpl.id}/publish`, { key, method: "POST" });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([{ path: "/assetIds/0", message: `asset ${font} was not found` }]);
    expect((await t.call(`/v1/templates/${tpl.id}/versions`, { key })).body.items).toEqual([]);
  });
});

describe("DELETE /v1/templates/:id", () => {
  test("removes the template and its versions, audited", async () => {
    const tpl = await created();
    await t.call(`/v1/templates/${tpl.id}/publish`, { key, method: "POST" });
    expect((await t.call(`/v1/templates/${tpl.id}`, { key: readKey, method: "DELETE" })).status).toBe(403);
    const res = await t.call(`/v1/templates/${tpl.id}`, { key: writeKey, method: "DELETE" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: tpl.id, deleted: true });
    expect((await t.call(`/v1/templates/${tpl.id}`, { key })).status).toBe(404);
    expect((await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM template_versions WHERE template_id = $id", { id: tpl.id }))!.n).toBe(0);
    const events = await auditOf(tpl.id);
    expect(events.map((e) => [e.action, e.resourceDeleted])).toEqual([
      ["template.deleted", true],
      ["template.published", true],
      ["template.created", true],
    ]);
    expect((await t.call(`/v1/templates/${tpl.id}`, { key, method: "DELETE" })).status).toBe(404);
  });
});

describe("templateForRender", () => {
  const store = () => t.server.store;
  const error = async (fn: () => Promise<unknown>): Promise<ApiError> => {
    try {
      await fn();
    } catch (e) {
      return e as ApiError;
    }
    throw new Error("expected an error");
  };

  test("answers the draft, the latest version or a numbered one, split into source and assetIds", async () => {
    const tpl = await created({ ...invoice(), assetIds: [asset.font] });
    const { assetIds, ...source } = tpl.draft;
    expect(await templateForRender(store(), t.defaultWorkspaceId, tpl.id, "draft")).toEqual({ templateId: tpl.id, version: null, source, assetIds });

    const err = await error(() => templateForRender(store(), t.defaultWorkspaceId, tpl.id, "latest"));
    expect([err.code, err.message]).toEqual(["CONFLICT", `Template ${tpl.id} has no published version; publish it first, or render its draft.`]);

    await t.call(`/v1/templates/${tpl.id}/publish`, { key, method: "POST" });
    await t.call(`/v1/templates/${tpl.id}`, { key, method: "PATCH", body: { assetIds: null, stylesheet: "p { margin: 0; }" } });
    await t.call(`/v1/templates/${tpl.id}/publish`, { key, method: "POST" });

    const latest = await templateForRender(store(), t.defaultWorkspaceId, tpl.id, "latest");
    expect(latest).toEqual({ templateId: tpl.id, version: 2, source: { ...source, stylesheet: "p { margin: 0; }" }, assetIds: [] });
    expect(await templateForRender(store(), t.defaultWorkspaceId, tpl.id, 1)).toEqual({ templateId: tpl.id, version: 1, source, assetIds });

    const missing = await error(() => templateForRender(store(), t.defaultWorkspaceId, tpl.id, 7));
    expect([missing.code, missing.message]).toEqual(["NOT_FOUND", `Template ${tpl.id} has no version 7.`]);
    expect((await error(() => templateForRender(store(), other.id, tpl.id, "draft"))).code).toBe("NOT_FOUND");
  });
});
