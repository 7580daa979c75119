import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PUBLIC_URL, startTestServer, type TestServer } from "../harness";
import { CSS, JPEG, local, PDF, PNG, put, registration, samples, sha256, streamOf, SVG, uploadSample, type Sample } from "../fixtures/assets";
import { sweepAssets } from "../../src/modules/assets/service";
import { FILE_DELETE_GRACE_MS, sweepFileDeletions } from "../../src/store/file-deletions";
import { testStoreEngine } from "../backends";
import { until } from "../wait";

let t: TestServer;
let key: string;
let all: Sample[];
const MIN = 60_000;

beforeAll(async () => {
  t = await startTestServer();
  key = await t.makeKey(t.defaultWorkspaceId, ["asset:manage", "audit:read", "render:read"]);
  all = await samples();
});
afterAll(() => t.stop());

const png = (): Sample => all[0]!;
const register = (body: unknown, k = key) => t.call("/v1/assets", { key: k, body });
const tempFiles = () => readdirSync(join(t.dataDir, "tmp", "uploads"));
const storedPath = (sha: string) => join(t.dataDir, "assets", sha.slice(0, 2), sha.slice(2, 4), sha);
/** stored tells whether the file store (DATA_DIR, or the bucket of a shared store) holds the asset bytes `sha`. */
const stored = (sha: string) => t.server.files.open("assets", sha).exists();
/** sweepFiles runs the file deletions as the cleanup would `ms` from now, without moving the clock. */
const sweepFiles = (ms: number) => sweepFileDeletions(t.server.store, t.server.files, { now: () => new Date(t.clock.now().getTime() + ms) });
const sweep = () => sweepAssets({ store: t.server.store, clock: t.clock, files: t.server.files, config: { publicUrl: PUBLIC_URL, secretKey: "unused-by-the-sweep-0123456789abcdef" } });

function tamper(address: string): string {
  const u = new URL(address);
  const token = u.searchParams.get("token")!;
  const last = token.at(-1) === "A" ? "B" : "A";
  u.searchParams.set("token", token.slice(0, -1) + last);
  return u.toString();
}

async function auditOf(resourceId: string) {
  const res = await t.call(`/v1/audit-events?resourceId=${resourceId}`, { key });
  expect(res.status).toBe(200);
  return res.body.items as any[];
}

describe("POST /v1/assets", () => {
  test("answers 201 AssetCreated with a signed PUT address on PUBLIC_URL valid for 15 minutes", async () => {
    const s = png();
    const res = await register(registration(s));
    expect(res.status).toBe(201);
    const a = res.body;
    expect(a.id).toMatch(/^ast_/);
    expect(a).toMatchObject({ kind: "image", filename: "pixel.png", mediaType: "image/png", size: s.bytes.byteLength, sha256: sha256(s.bytes) });
    expect(a.createdAt).toBe(t.clock.now().toISOString());
    expect(a.uploadMethod).toBe("PUT");
    expect(a.uploadUrl.startsWith(`${PUBLIC_URL}/uploads/${a.id}?token=`)).toBe(true);
    expect(a.uploadHeaders).toEqual({ "content-type": "image/png", "content-length": String(s.bytes.byteLength) });
    expect(a.uploadExpiresAt).toBe(new Date(t.clock.now().getTime() + 15 * MIN).toISOString());
  });

  test.each([
    ["a missing field", { kind: "image", filename: "a.png", mediaType: "image/png", size: 10 }, "/sha256"],
    ["an extra field", { ...registration({ kind: "image", mediaType: "image/png", filename: "a.png", bytes: PNG }), url: "http://x" }, "/url"],
    ["size 0", { ...registration({ kind: "image", mediaType: "image/png", filename: "a.png", bytes: PNG }), size: 0 }, "/size"],
    ["size over 50000000", { ...registration({ kind: "image", mediaType: "image/png", filename: "a.png", bytes: PNG }), size: 50_000_001 }, "/size"],
    ["a fractional size", { ...registration({ kind: "image", mediaType: "image/png", filename: "a.png", bytes: PNG }), size: 1.5 }, "/size"],
    ["an uppercase sha256", { ...registration({ kind: "image", mediaType: "image/png", filename: "a.png", bytes: PNG }), sha256: "A".repeat(64) }, "/sha256"],
    ["a short sha256", { ...registration({ kind: "image", mediaType: "image/png", filename: "a.png", bytes: PNG }), sha256: "a".repeat(63) }, "/sha256"],
    ["an empty filename", { ...registration({ kind: "image", mediaType: "image/png", filename: "a.png", bytes: PNG }), filename: "" }, "/filename"],
    ["a 256-character filename", { ...registration({ kind: "image", mediaType: "image/png", filename: "a.png", bytes: PNG }), filename: "x".repeat(256) }, "/filename"],
    ["an unknown kind", { ...registration({ kind: "image", mediaType: "image/png", filename: "a.png", bytes: PNG }), kind: "video" }, "/kind"],
    ["an unknown media type", { ...registration({ kind: "image", mediaType: "image/png", filename: "a.png", bytes: PNG }), mediaType: "image/gif" }, "/mediaType"],
  ])("%s: 400 BAD_REQUEST with a JSON pointer", async (_, body, path) => {
    const res = await register(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("BAD_REQUEST");
    expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
  });

  test("bounds that are allowed: size 50000000, a 255-character filename", async () => {
    const res = await register({ kind: "pdf", filename: "x".repeat(255), mediaType: "application/pdf", size: 50_000_000, sha256: "b".repeat(64) });
    expect(res.status).toBe(201);
    await t.call(`/v1/assets/${res.body.id}`, { key, method: "DELETE" });
  });

  test.each([
    ["image", "image/svg+xml"],
    ["svg", "image/png"],
    ["font", "text/css"],
    ["stylesheet", "font/woff2"],
    ["workbook", "application/pdf"],
    ["pdf", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
  ])("kind %s with media type %s: 400 at /mediaType", async (kind, mediaType) => {
    const res = await register({ kind, filename: "f", mediaType, size: 10, sha256: "c".repeat(64) });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: "/mediaType", message: expect.stringContaining(`a ${kind} asset must be one of`) }]);
  });
});

describe("upload and download round trip", () => {
  test("every kind and media type comes back byte for byte", async () => {
    for (const s of all) {
      const reg = await register(registration(s));
      expect(reg.status).toBe(201);
      const up = await put(t, reg.body.uploadUrl, s.bytes, reg.body.uploadHeaders);
      expect(up.status, `${s.mediaType}: ${JSON.stringify(up.body)}`).toBe(200);
      expect(up.body).toEqual({ id: reg.body.id, kind: s.kind, filename: s.filename, mediaType: s.mediaType, size: s.bytes.byteLength, sha256: sha256(s.bytes), createdAt: reg.body.createdAt });
      expect(await stored(sha256(s.bytes))).toBe(true);

      const detail = await t.call(`/v1/assets/${reg.body.id}`, { key });
      expect(detail.status).toBe(200);
      const down = await fetch(local(t, detail.body.downloadUrl));
      expect(down.status).toBe(200);
      expect(down.headers.get("content-type")).toBe(s.mediaType);
      expect(down.headers.get("etag")).toBe(`"${sha256(s.bytes)}"`);
      expect(new Uint8Array(await down.arrayBuffer())).toEqual(s.bytes);
    }
    expect(tempFiles()).toEqual([]);
  });

  test("a chunked upload without content-length works", async () => {
    const s = all.find((x) => x.kind === "workbook")!;
    const reg = await register(registration(s));
    const up = await put(t, reg.body.uploadUrl, streamOf(s.bytes, 1000));
    expect(up.status).toBe(200);
    const detail = await t.call(`/v1/assets/${reg.body.id}`, { key });
    const down = await fetch(local(t, detail.body.downloadUrl));
    expect(new Uint8Array(await down.arrayBuffer())).toEqual(s.bytes);
  });

  test("the upload answers with the x-request-id and needs no key or cookie", async () => {
    const reg = await register(registration(png()));
    const res = await fetch(local(t, reg.body.uploadUrl), { method: "PUT", body: PNG, headers: { "x-request-id": "upload-1" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("upload-1");
  });
});

describe("refused uploads keep nothing and the asset stays uploadable", () => {
  async function refusedThenAccepted(s: Sample, send: (address: string) => Promise<{ status: number; body: any }>, path: string) {
    const reg = await register(registration(s));
    expect(reg.status).toBe(201);
    const bad = await send(reg.body.uploadUrl);
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("ASSET_INVALID");
    expect(bad.body.error.retryable).toBe(false);
    expect(bad.body.error.details.map((d: any) => d.path)).toContain(path);
    expect(tempFiles()).toEqual([]);
    expect((await t.call(`/v1/assets/${reg.body.id}`, { key })).status).toBe(404);
    const good = await put(t, reg.body.uploadUrl, s.bytes);
    expect(good.status).toBe(200);
    return { reg, bad };
  }

  test("a short body (content-length differs): 422 at /size, before reading", async () => {
    const s: Sample = { kind: "pdf", mediaType: "application/pdf", filename: "short.pdf", bytes: PDF };
    await refusedThenAccepted(s, (a) => put(t, a, PDF.slice(0, 20)), "/size");
  });

  test("a long body (content-length differs): 422 at /size", async () => {
    const s: Sample = { kind: "pdf", mediaType: "application/pdf", filename: "long.pdf", bytes: PDF };
    await refusedThenAccepted(s, (a) => put(t, a, new Uint8Array([...PDF, 1, 2, 3])), "/size");
  });

  test("a short chunked body: 422 at /size (and /sha256)", async () => {
    const s: Sample = { kind: "stylesheet", mediaType: "text/css", filename: "short.css", bytes: CSS };
    const { bad } = await refusedThenAccepted(s, (a) => put(t, a, streamOf(CSS.slice(0, 10))), "/size");
    expect(bad.body.error.details[0].message).toContain("10 bytes arrived");
  });

  test("a long chunked body is cut off as soon as it passes the registered size", async () => {
    const s: Sample = { kind: "stylesheet", mediaType: "text/css", filename: "long.css", bytes: CSS };
    const { bad } = await refusedThenAccepted(s, (a) => put(t, a, streamOf(new Uint8Array(1_000_000).fill(0x20), 64 * 1024)), "/size");
    expect(bad.body.error.details[0].message).toContain(`more than the registered ${CSS.byteLength} bytes`);
  });

  test("the right size, the wrong bytes: 422 at /sha256", async () => {
    const s: Sample = { kind: "image", mediaType: "image/png", filename: "hash.png", bytes: PNG };
    const other = Uint8Array.from(PNG);
    other[PNG.length - 1] ^= 0xff;
    const { bad } = await refusedThenAccepted(s, (a) => put(t, a, other), "/sha256");
    expect(bad.body.error.details[0].message).toContain(sha256(other));
  });

  test.each([
    ["a PNG registered as JPEG", "image", "image/jpeg", PNG],
    ["a JPEG registered as PNG", "image", "image/png", JPEG],
    ["a PDF registered as SVG", "svg", "image/svg+xml", PDF],
    ["a PDF registered as woff2", "font", "font/woff2", PDF],
    ["a PNG registered as ttf", "font", "font/ttf", PNG],
    ["a PNG registered as otf", "font", "font/otf", PNG],
    ["a PNG registered as CSS", "stylesheet", "text/css", PNG],
    ["a PDF registered as XLSX", "workbook", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", PDF],
    ["an SVG registered as PDF", "pdf", "application/pdf", SVG],
  ])("wrong magic bytes (%s): 422 at /mediaType", async (_, kind, mediaType, bytes) => {
    const reg = await register({ kind, mediaType, filename: "wrong", size: bytes.byteLength, sha256: sha256(bytes) });
    expect(reg.status).toBe(201);
    const bad = await put(t, reg.body.uploadUrl, bytes);
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([{ path: "/mediaType", message: expect.any(String) }]);
    expect(tempFiles()).toEqual([]);
  });

  test("an HTML page registered as SVG, with the right size and sha256: 422 at /mediaType, every time", async () => {
    const bytes = new TextEncoder().encode("<html><body><svg></svg></body></html>");
    const reg = await register({ kind: "svg", mediaType: "image/svg+xml", filename: "x.svg", size: bytes.byteLength, sha256: sha256(bytes) });
    for (let i = 0; i < 2; i++) {
      const res = await put(t, reg.body.uploadUrl, bytes);
      expect(res.status).toBe(422);
      expect(res.body.error.details).toEqual([{ path: "/mediaType", message: expect.stringContaining("<svg>") }]);
    }
  });

  test("a wrong file, then a wrong-size file, then the right one: the registration stays uploadable", async () => {
    const s: Sample = { kind: "image", mediaType: "image/png", filename: "retry.png", bytes: PNG };
    const { reg } = await refusedThenAccepted(s, (a) => put(t, a, streamOf(JPEG)), "/size");
    expect((await t.call(`/v1/assets/${reg.body.id}`, { key })).status).toBe(200);
  });
});

describe("upload addresses", () => {
  test("an expired address (16 minutes later): 403", async () => {
    const reg = await register(registration(png()));
    t.clock.advance(16 * MIN);
    const res = await put(t, reg.body.uploadUrl, PNG);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    expect(res.body.error.message).toContain("expired");
    expect(tempFiles()).toEqual([]);
  });

  test("a tampered, missing or foreign token: 403", async () => {
    const a = await register(registration(png()));
    const b = await register(registration(png()));
    expect((await put(t, tamper(a.body.uploadUrl), PNG)).status).toBe(403);
    const u = new URL(a.body.uploadUrl);
    expect((await put(t, `${u.origin}${u.pathname}`, PNG)).status).toBe(403);
    // b's token on a's address
    const foreign = `${u.origin}${u.pathname}?token=${new URL(b.body.uploadUrl).searchParams.get("token")}`;
    expect((await put(t, foreign, PNG)).status).toBe(403);
    // a forged later expiry with the old signature
    const [, sig] = (u.searchParams.get("token"))!.split(".");
    expect((await put(t, `${u.origin}${u.pathname}?token=${Date.parse("2099-01-01")}.${sig}`, PNG)).status).toBe(403);
    expect((await put(t, a.body.uploadUrl, PNG)).status).toBe(200);
  });

  test("a second upload of an uploaded asset: 409", async () => {
    const reg = await register(registration(png()));
    expect((await put(t, reg.body.uploadUrl, PNG)).status).toBe(200);
    const again = await put(t, reg.body.uploadUrl, PNG);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("CONFLICT");
  });

  test("a parallel upload of the same asset while one streams in: 409", async () => {
    const reg = await register(registration({ kind: "stylesheet", mediaType: "text/css", filename: "slow.css", bytes: CSS }));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let sent = 0;
    const slow = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (sent === 0) {
          c.enqueue(CSS.slice(0, 10));
          sent = 10;
          return;
        }
        await gate;
        c.enqueue(CSS.slice(10));
        c.close();
      },
    });
    const first = put(t, reg.body.uploadUrl, slow);
    // Wait until the first upload holds its temporary file.
    for (let i = 0; i < 200 && tempFiles().length === 0; i++) await Bun.sleep(5);
    expect(tempFiles().length).toBe(1);
    const second = await put(t, reg.body.uploadUrl, CSS);
    expect(second.status).toBe(409);
    // The sweep spares a registration and a temporary file that an upload is writing.
    t.clock.advance(16 * MIN);
    expect((await sweep()).tempFiles).toBe(0);
    release();
    expect((await first).status).toBe(200);
    expect(tempFiles()).toEqual([]);
  });

  test("a download address does not upload, an upload address does not download", async () => {
    const s = png();
    const reg = await register(registration(s));
    const asUpload = new URL(reg.body.uploadUrl);
    const res = await fetch(`${t.url}/downloads/${reg.body.id}${asUpload.search}`);
    expect(res.status).toBe(403);
    expect((await put(t, reg.body.uploadUrl, PNG)).status).toBe(200);
    const detail = await t.call(`/v1/assets/${reg.body.id}`, { key });
    const asDownload = new URL(detail.body.downloadUrl);
    expect((await put(t, `${PUBLIC_URL}/uploads/${reg.body.id}${asDownload.search}`, PNG)).status).toBe(403);
  });
});

describe("GET /v1/assets/{id} and the download address", () => {
  test("AssetDetail has a download address valid for 1 hour on PUBLIC_URL", async () => {
    const reg = await uploadSample(t, key, png());
    const res = await t.call(`/v1/assets/${reg.id}`, { key });
    expect(res.status).toBe(200);
    const { downloadUrl, expiresAt, ...asset } = res.body;
    expect(asset).toEqual({ id: reg.id, kind: reg.kind, filename: reg.filename, mediaType: reg.mediaType, size: reg.size, sha256: reg.sha256, createdAt: reg.createdAt });
    expect(downloadUrl.startsWith(`${PUBLIC_URL}/downloads/${reg.id}?token=`)).toBe(true);
    expect(expiresAt).toBe(new Date(t.clock.now().getTime() + 60 * MIN).toISOString());
  });

  test("ETag, If-None-Match → 304, content-disposition with a UTF-8 filename", async () => {
    const s: Sample = { kind: "pdf", mediaType: "application/pdf", filename: 'Rechnung "März" 50% ✓.pdf', bytes: PDF };
    const reg = await uploadSample(t, key, s);
    const detail = await t.call(`/v1/assets/${reg.id}`, { key });
    const address = local(t, detail.body.downloadUrl);
    const res = await fetch(address);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="Rechnung _M_rz_ 50_ _.pdf"; filename*=UTF-8''Rechnung%20%22M%C3%A4rz%22%2050%25%20%E2%9C%93.pdf`);
    // From a bucket the bytes are streamed through, and Bun 1.4.5 sends a stream chunked, dropping any Content-Length
    // (oven-sh/bun#10507; docs/scale-out.md).
    expect(res.headers.get("content-length")).toBe(testStoreEngine() === "sqlite" ? String(PDF.byteLength) : null);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const etag = res.headers.get("etag")!;
    expect(etag).toBe(`"${sha256(PDF)}"`);
    await res.arrayBuffer();
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const cached = await fetch(address, { headers: { "if-none-match": inm } });
      expect(cached.status).toBe(304);
      expect(cached.headers.get("etag")).toBe(etag);
      expect((await cached.arrayBuffer()).byteLength).toBe(0);
    }
    expect((await fetch(address, { headers: { "if-none-match": '"other"' } })).status).toBe(200);
  });

  test("a filename with control characters cannot split the header", async () => {
    const s: Sample = { kind: "pdf", mediaType: "application/pdf", filename: "a\r\nset-cookie: x=1\\.pdf", bytes: PDF };
    const reg = await uploadSample(t, key, s);
    const detail = await t.call(`/v1/assets/${reg.id}`, { key });
    const res = await fetch(local(t, detail.body.downloadUrl));
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="a__set-cookie: x=1_.pdf"; filename*=UTF-8''a%0D%0Aset-cookie%3A%20x%3D1%5C.pdf`);
  });

  test("an expired or tampered download address: 403", async () => {
    const reg = await uploadSample(t, key, png());
    const detail = await t.call(`/v1/assets/${reg.id}`, { key });
    expect((await fetch(local(t, tamper(detail.body.downloadUrl)))).status).toBe(403);
    t.clock.advance(59 * MIN);
    expect((await fetch(local(t, detail.body.downloadUrl))).status).toBe(200);
    t.clock.advance(2 * MIN);
    const res = await fetch(local(t, detail.body.downloadUrl));
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe("FORBIDDEN");
  });

  test("a registration not yet uploaded: 404 and not listed", async () => {
    const reg = await register(registration(png()));
    const res = await t.call(`/v1/assets/${reg.body.id}`, { key });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    const list = await t.call("/v1/assets?limit=100", { key });
    expect(list.body.items.map((a: any) => a.id)).not.toContain(reg.body.id);
  });

  test("an unknown id: 404; a malformed id: 400", async () => {
    expect((await t.call("/v1/assets/ast_nothing", { key })).status).toBe(404);
    expect((await t.call("/v1/assets/-bad", { key })).status).toBe(400);
  });
});

describe("another workspace", () => {
  test("its assets are 404 for reading, downloading details and deleting, and never listed", async () => {
    const other = await t.makeWorkspace("Other Assets");
    const otherKey = await t.makeKey(other.id, ["asset:manage"]);
    const theirs = await uploadSample(t, otherKey, png());
    expect((await t.call(`/v1/assets/${theirs.id}`, { key })).status).toBe(404);
    expect((await t.call(`/v1/assets/${theirs.id}`, { key, method: "DELETE" })).status).toBe(404);
    const list = await t.call("/v1/assets?limit=100", { key });
    expect(list.body.items.map((a: any) => a.id)).not.toContain(theirs.id);
    expect((await t.call(`/v1/assets/${theirs.id}`, { key: otherKey })).status).toBe(200);
  });
});

describe("scopes (spec 4.5)", () => {
  test("asset:manage registers every kind; template:content registers images only; neither: 403", async () => {
    const content = await t.makeKey(t.defaultWorkspaceId, ["template:content"]);
    const neither = await t.makeKey(t.defaultWorkspaceId, ["template:read", "render:create"]);
    for (const s of all) {
      const withContent = await register(registration(s), content);
      if (s.kind === "image") {
        expect(withContent.status).toBe(201);
        expect((await put(t, withContent.body.uploadUrl, s.bytes)).status).toBe(200);
      } else {
        expect(withContent.status).toBe(403);
        expect(withContent.body.error.message).toContain("asset:manage");
      }
      const none = await register(registration(s), neither);
      expect(none.status).toBe(403);
      expect(none.body.error.message).toContain("asset:manage");
    }
  });

  test("template:content alone does not list, read or delete", async () => {
    const content = await t.makeKey(t.defaultWorkspaceId, ["template:content"]);
    const reg = await register(registration(png()), content);
    expect((await t.call("/v1/assets", { key: content })).status).toBe(403);
    expect((await t.call(`/v1/assets/${reg.body.id}`, { key: content })).status).toBe(403);
    expect((await t.call(`/v1/assets/${reg.body.id}`, { key: content, method: "DELETE" })).status).toBe(403);
  });

  test("no credential: 401 (before the body is looked at)", async () => {
    expect((await t.call("/v1/assets", { body: { nonsense: true } })).status).toBe(401);
    expect((await t.call("/v1/assets")).status).toBe(401);
  });

  test("a console session of a member works, with the Origin rule for writes", async () => {
    const ws = await t.makeWorkspace("Members", "member");
    const ok = await t.call("/v1/assets", { cookie: ws.cookie, body: registration(png()) });
    expect(ok.status).toBe(201);
    const noOrigin = await t.call("/v1/assets", { cookie: ws.cookie, origin: null, body: registration(png()) });
    expect(noOrigin.status).toBe(403);
  });
});

describe("GET /v1/assets", () => {
  test("newest first, paged with limit and cursor, filtered by kind", async () => {
    const ws = await t.makeWorkspace("Listing");
    const k = await t.makeKey(ws.id, ["asset:manage"]);
    const order: Array<{ id: string; kind: string }> = [];
    for (let i = 0; i < 7; i++) {
      t.clock.advance(1000);
      const s = all[i % all.length]!;
      const a = await uploadSample(t, k, s);
      order.unshift({ id: a.id, kind: s.kind });
    }
    // A pending registration is never listed.
    await register(registration(png()), k);
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await t.call(`/v1/assets?limit=3${cursor ? `&cursor=${cursor}` : ""}`, { key: k });
      expect(res.status).toBe(200);
      ids.push(...res.body.items.map((a: any) => a.id));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(ids).toEqual(order.map((o) => o.id));

    const fonts = await t.call("/v1/assets?kind=font", { key: k });
    expect(fonts.body.items.map((a: any) => a.id)).toEqual(order.filter((o) => o.kind === "font").map((o) => o.id));
    expect(fonts.body.nextCursor).toBeUndefined();
    const images = await t.call("/v1/assets?kind=image&limit=1", { key: k });
    expect(images.body.items.length).toBe(1);
    expect(images.body.nextCursor).toBeTruthy();
    const next = await t.call(`/v1/assets?kind=image&limit=1&cursor=${images.body.nextCursor}`, { key: k });
    expect(next.body.items.length).toBe(1);
    expect(next.body.items[0].id).not.toBe(images.body.items[0].id);
  });

  test("default 50 items, at most 100; bad queries: 400", async () => {
    const ws = await t.makeWorkspace("Many");
    const k = await t.makeKey(ws.id, ["asset:manage"]);
    for (let i = 0; i < 52; i++) await uploadSample(t, k, png());
    const res = await t.call("/v1/assets", { key: k });
    expect(res.body.items.length).toBe(50);
    expect(res.body.nextCursor).toBeTruthy();
    expect((await t.call("/v1/assets?limit=100", { key: k })).body.items.length).toBe(52);
    for (const q of ["limit=101", "limit=0", "kind=video", "cursor=nope", "other=1"]) {
      const bad = await t.call(`/v1/assets?${q}`, { key: k });
      expect(bad.status, q).toBe(400);
    }
  });
});

describe("DELETE /v1/assets/{id}", () => {
  test("answers {id, deleted: true}; the file stays while another asset has the same bytes", async () => {
    const s: Sample = { kind: "stylesheet", mediaType: "text/css", filename: "shared.css", bytes: new TextEncoder().encode(`/* shared ${Date.now()} */ a { color: red }`) };
    const first = await uploadSample(t, key, s);
    const other = await t.makeWorkspace("Shares Bytes");
    const second = await uploadSample(t, await t.makeKey(other.id, ["asset:manage"]), { ...s, filename: "copy.css" });
    const sha = sha256(s.bytes);
    expect(await stored(sha)).toBe(true);

    const del = await t.call(`/v1/assets/${first.id}`, { key, method: "DELETE" });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: first.id, deleted: true });
    expect(await stored(sha)).toBe(true);
    expect((await t.call(`/v1/assets/${first.id}`, { key })).status).toBe(404);
    expect((await t.call(`/v1/assets/${first.id}`, { key, method: "DELETE" })).status).toBe(404);

    const otherKey = await t.makeKey(other.id, ["asset:manage"]);
    const detail = await t.call(`/v1/assets/${second.id}`, { key: otherKey });
    const down = await fetch(local(t, detail.body.downloadUrl));
    expect(new Uint8Array(await down.arrayBuffer())).toEqual(s.bytes);

    expect((await t.call(`/v1/assets/${second.id}`, { key: otherKey, method: "DELETE" })).status).toBe(200);
    // Its download address now finds nothing; the file itself goes once its deletion is due (a grace for readers).
    expect((await fetch(local(t, detail.body.downloadUrl))).status).toBe(404);
    await sweepFiles(FILE_DELETE_GRACE_MS - 1);
    expect(await stored(sha)).toBe(true);
    expect(await sweepFiles(FILE_DELETE_GRACE_MS)).toBeGreaterThanOrEqual(1);
    expect(await stored(sha)).toBe(false);
  });

  test("the same bytes uploaded again while their deletion waits are kept", async () => {
    const s: Sample = { kind: "stylesheet", mediaType: "text/css", filename: "again.css", bytes: new TextEncoder().encode(`/* again ${Date.now()} */ a { color: blue }`) };
    const first = await uploadSample(t, key, s);
    expect((await t.call(`/v1/assets/${first.id}`, { key, method: "DELETE" })).status).toBe(200);
    t.clock.advance(FILE_DELETE_GRACE_MS / 2);
    const again = await uploadSample(t, key, s);
    await sweepFiles(FILE_DELETE_GRACE_MS);
    expect(await stored(sha256(s.bytes))).toBe(true);
    const detail = await t.call(`/v1/assets/${again.id}`, { key });
    expect(new Uint8Array(await (await fetch(local(t, detail.body.downloadUrl))).arrayBuffer())).toEqual(s.bytes);
  });

  test("a pending registration can be deleted (cancelled); its address then finds nothing", async () => {
    const reg = await register(registration(png()));
    const del = await t.call(`/v1/assets/${reg.body.id}`, { key, method: "DELETE" });
    expect(del.status).toBe(200);
    expect((await put(t, reg.body.uploadUrl, PNG)).status).toBe(404);
  });
});

describe("maxStorageBytes and storageBytes", () => {
  test("uploaded plus reserved bytes may not go over the allowance: 429 QUOTA_EXCEEDED", async () => {
    const admin = await t.signIn();
    const ws = await t.makeWorkspace("Quota");
    const k = await t.makeKey(ws.id, ["asset:manage", "render:read"]);
    const limits = async () => (await t.call("/v1/render-limits", { key: k })).body;
    const setMax = async (max: number | null) => {
      const res = await t.call(`/v1/companies/${ws.id}/allowances`, { cookie: admin, method: "PUT", body: { maxActiveRenders: 10, rendersPerMinute: 60, maxStorageBytes: max } });
      expect(res.status).toBe(200);
    };
    expect((await limits()).storageBytes).toBe(0);
    await setMax(PDF.byteLength * 2 + 10);

    const first = await uploadSample(t, k, { kind: "pdf", mediaType: "application/pdf", filename: "1.pdf", bytes: PDF });
    expect((await limits()).storageBytes).toBe(PDF.byteLength);
    // The second registration reserves the rest; a third does not fit even before the second is uploaded.
    const second = await t.call("/v1/assets", { key: k, body: registration({ kind: "pdf", mediaType: "application/pdf", filename: "2.pdf", bytes: PDF }) });
    expect(second.status).toBe(201);
    expect((await limits()).storageBytes).toBe(PDF.byteLength);
    const third = await t.call("/v1/assets", { key: k, body: registration({ kind: "pdf", mediaType: "application/pdf", filename: "3.pdf", bytes: PDF }) });
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe("QUOTA_EXCEEDED");
    expect(third.body.error.retryable).toBe(false);
    expect(third.headers.get("retry-after")).toBeNull();

    // A registration that expires gives its reservation back.
    t.clock.advance(16 * MIN);
    expect((await t.call("/v1/assets", { key: k, body: registration({ kind: "pdf", mediaType: "application/pdf", filename: "3.pdf", bytes: PDF }) })).status).toBe(201);
    expect(await t.server.store.get("SELECT 1 FROM assets WHERE id = $id", { id: second.body.id })).toBeNull();

    // Deleting frees uploaded bytes; null is unlimited; 0 refuses everything.
    expect((await t.call(`/v1/assets/${first.id}`, { key: k, method: "DELETE" })).status).toBe(200);
    expect((await limits()).storageBytes).toBe(0);
    await setMax(0);
    expect((await t.call("/v1/assets", { key: k, body: registration(png()) })).status).toBe(429);
    await setMax(null);
    expect((await t.call("/v1/assets", { key: k, body: { kind: "pdf", filename: "big.pdf", mediaType: "application/pdf", size: 50_000_000, sha256: "d".repeat(64) } })).status).toBe(201);
  });

  test("storageBytes counts each uploaded asset, also when two share their bytes", async () => {
    const ws = await t.makeWorkspace("Counting");
    const k = await t.makeKey(ws.id, ["asset:manage", "render:read"]);
    await uploadSample(t, k, png());
    await uploadSample(t, k, png());
    await t.call("/v1/assets", { key: k, body: registration({ kind: "pdf", mediaType: "application/pdf", filename: "p.pdf", bytes: PDF }) });
    const res = await t.call("/v1/render-limits", { key: k });
    expect(res.body.storageBytes).toBe(PNG.byteLength * 2);
  });
});

describe("cleanup", () => {
  test("the sweep deletes expired registrations and stale temporary files, with an audit event", async () => {
    const reg = await register(registration(png()));
    const fresh = await (async () => {
      t.clock.advance(10 * MIN);
      return register(registration(png()));
    })();
    const stale = join(t.dataDir, "tmp", "uploads", "ast_crashed.abc.part");
    writeFileSync(stale, "left by a crash");
    t.clock.advance(6 * MIN);
    const result = await sweep();
    expect(result.expiredRegistrations).toBeGreaterThanOrEqual(1);
    expect(result.tempFiles).toBe(1);
    expect(existsSync(stale)).toBe(false);
    expect(await t.server.store.get("SELECT 1 FROM assets WHERE id = $id", { id: reg.body.id })).toBeNull();
    expect(await t.server.store.get("SELECT 1 FROM assets WHERE id = $id", { id: fresh.body.id })).not.toBeNull();
    const events = await auditOf(reg.body.id);
    expect(events.map((e) => e.action)).toEqual(["asset.expired", "asset.registered"]);
    expect(events[0]).toMatchObject({ actorType: "system", actorId: "renderd", resourceType: "asset", resourceName: "pixel.png", resourceDeleted: true });
    expect(await sweep()).toEqual({ expiredRegistrations: 0, tempFiles: 0 });
  });

  // Ages are set on files under DATA_DIR (their mtime): a bucket's LastModified cannot be set back. The listing the scan
  // reads is tested on s3rver in test/store/files.test.ts, the scan's rules in test/store/file-deletions.test.ts.
  test.skipIf(testStoreEngine() === "postgres")("a restart removes stored files no asset points at that are older than the grace, and keeps the others", async () => {
    const kept = await uploadSample(t, key, { kind: "pdf", mediaType: "application/pdf", filename: "kept.pdf", bytes: PDF });
    const orphan = storedPath("e".repeat(64));
    const young = storedPath("f".repeat(64));
    for (const [path, age] of [[orphan, FILE_DELETE_GRACE_MS + MIN], [young, FILE_DELETE_GRACE_MS - MIN]] as const) {
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, "orphan");
      const at = new Date(t.clock.now().getTime() - age);
      utimesSync(path, at, at);
    }
    writeFileSync(join(t.dataDir, "tmp", "uploads", "x.part"), "stale");
    await t.restart();
    // The first cleanup runs as the server starts: the old orphan's deletion is due at once.
    await until(() => !existsSync(orphan));
    expect(existsSync(young)).toBe(true);
    expect(existsSync(storedPath(kept.sha256))).toBe(true);
    expect(tempFiles()).toEqual([]);
    const detail = await t.call(`/v1/assets/${kept.id}`, { key });
    expect(new Uint8Array(await (await fetch(local(t, detail.body.downloadUrl))).arrayBuffer())).toEqual(PDF);
  });
});

describe("audit", () => {
  test("registration, upload and deletion each write an event with kind, size and sha256", async () => {
    const s: Sample = { kind: "svg", mediaType: "image/svg+xml", filename: "audited.svg", bytes: SVG };
    const reg = await register(registration(s));
    const up = await fetch(local(t, reg.body.uploadUrl), { method: "PUT", body: SVG, headers: { "x-request-id": "upload-audited" } });
    expect(up.status).toBe(200);
    const del = await t.call(`/v1/assets/${reg.body.id}`, { key, method: "DELETE", headers: { "x-request-id": "delete-audited" } });
    expect(del.status).toBe(200);
    const events = await auditOf(reg.body.id);
    expect(events.map((e) => e.action)).toEqual(["asset.deleted", "asset.uploaded", "asset.registered"]);
    const keyId = (await t.server.store.get<{ id: string }>("SELECT id FROM api_keys WHERE secret_hash = $h", { h: sha256(new TextEncoder().encode(key)) }))!.id;
    for (const e of events) {
      expect(e).toMatchObject({
        actorType: "api_key",
        actorId: keyId,
        resourceType: "asset",
        resourceId: reg.body.id,
        resourceName: "audited.svg",
        resourceDeleted: true,
        metadata: { kind: "svg", size: SVG.byteLength, sha256: sha256(SVG) },
      });
    }
    expect(events[1].requestId).toBe("upload-audited");
    expect(events[0].requestId).toBe("delete-audited");
  });

  test("a refused registration or upload writes nothing", async () => {
    const before = (await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM audit_events"))!.n;
    await register({ kind: "image", filename: "x", mediaType: "text/css", size: 1, sha256: "f".repeat(64) });
    const reg = await register(registration(png()));
    await put(t, reg.body.uploadUrl, JPEG);
    const after = (await t.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM audit_events"))!.n;
    expect(after - before).toBe(1);
  });
});
