/** scale-out: one renderd process on a shared store (PostgreSQL, test/backends.ts) with its files in an S3-compatible
 * bucket (s3rver) and its rate counters in a real redis-server, both of this file's own to look into (docs/scale-out.md):
 * uploads, downloads, a template's stylesheet and the render's PDF go through the bucket, nothing under DATA_DIR; the
 * API rate limit counts in Redis. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { S3Client } from "bun";
import { ok, startTestServer, type TestServer } from "../harness";
import { local, put, registration, sha256 } from "../fixtures/assets";
import { pdfText } from "../render/fixtures";
import { startRedis, type TestRedis } from "../http/redis-server";
import { startS3, type TestBucket } from "../store/s3-server";
import { FILE_DELETE_GRACE_MS, sweepFileDeletions } from "../../src/store/file-deletions";
import { sharedStoreEnv } from "../backends";

let bucket: TestBucket;
let redis: TestRedis;
let t: TestServer;
let key: string;
const RATE = 500;

beforeAll(async () => {
  [bucket, redis] = await Promise.all([startS3(), startRedis()]);
  const s3 = bucket.settings;
  t = await startTestServer({
    ...(await sharedStoreEnv()),
    S3_BUCKET: s3.bucket,
    S3_ENDPOINT: s3.endpoint!,
    S3_REGION: s3.region!,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    REDIS_URL: redis.url,
    API_RATE_LIMIT_PER_MINUTE: String(RATE),
  });
  key = await t.makeKey(t.defaultWorkspaceId, ["asset:manage", "template:read", "template:write", "template:content", "render:create", "render:read"]);
});
afterAll(async () => {
  await t?.stop();
  await Promise.all([bucket?.stop(), redis?.stop()]);
});

const inBucket = (k: string) => new S3Client(bucket.settings).exists(k);
const storedUnder = (area: string) => (existsSync(join(t.dataDir, area)) ? readdirSync(join(t.dataDir, area)) : []);

describe("files in an S3-compatible bucket", () => {
  test("an upload is stored in the bucket under its sha256 and its download streams back from it with our headers", async () => {
    const css = { kind: "stylesheet" as const, mediaType: "text/css", filename: "brand.css", bytes: new TextEncoder().encode(".brand::before { content: 'FROM-THE-BUCKET '; }") };
    const reg = ok(await t.call("/v1/assets", { key, body: registration(css) }), 201);
    expect((await put(t, reg.uploadUrl, css.bytes, reg.uploadHeaders)).status).toBe(200);
    const sha = sha256(css.bytes);
    expect(await inBucket(`assets/${sha.slice(0, 2)}/${sha.slice(2, 4)}/${sha}`)).toBe(true);
    expect(storedUnder("assets")).toEqual([]);
    const detail = ok(await t.call(`/v1/assets/${reg.id}`, { key }), 200);
    const download = await fetch(local(t, detail.downloadUrl), { redirect: "manual" });
    expect(download.status).toBe(200);
    expect(download.headers.get("etag")).toBe(`"${sha}"`);
    expect(download.headers.get("content-disposition")).toContain('filename="brand.css"');
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(css.bytes);

    // A template using it renders: planning reads the stylesheet from the bucket; the PDF is stored there too.
    const template = ok(await t.call("/v1/templates", { key, body: { name: "Bucket", assetIds: [reg.id], content: { type: "text", text: "styled", className: "brand" } } }), 201);
    const render = ok(await t.call("/v1/renders?wait=30", { key, body: { templateId: template.id, test: true } }), 200);
    expect(render.status).toBe("succeeded");
    const pdf = await fetch(local(t, render.result.downloadUrl), { redirect: "manual" });
    expect(pdf.status).toBe(200);
    expect(pdfText(new Uint8Array(await pdf.arrayBuffer()))).toContain("FROM-THE-BUCKET styled");
    const out = (await t.server.store.get<{ output_sha256: string }>("SELECT output_sha256 FROM renders WHERE id = $id", { id: render.id }))!.output_sha256;
    // Written to the bucket just after the render's end, which committed it spooled in the store (store/output-spool.ts).
    await t.server.files.settled();
    expect(await inBucket(`outputs/${out.slice(0, 2)}/${out.slice(2, 4)}/${out}`)).toBe(true);
    expect(storedUnder("outputs")).toEqual([]);

    // Deleting the last asset with those bytes deletes the object once the grace has passed (docs/architecture.md,
    // "Deleting shared bytes"): another process may be uploading the same bytes meanwhile.
    ok(await t.call(`/v1/assets/${reg.id}`, { key, method: "DELETE" }), 200);
    const object = `assets/${sha.slice(0, 2)}/${sha.slice(2, 4)}/${sha}`;
    expect(await inBucket(object)).toBe(true);
    expect(await sweepFileDeletions(t.server.store, t.server.files, { now: () => new Date(t.clock.now().getTime() + FILE_DELETE_GRACE_MS) })).toBe(1);
    expect(await inBucket(object)).toBe(false);
  });
});

describe("rate counters in Redis", () => {
  test("the API rate limit counts each /v1/ request in Redis under the client's address and the minute", async () => {
    const window = Math.floor(t.clock.now().getTime() / 60_000) * 60_000;
    const redisKey = `renderd:rate:api:127.0.0.1:${window}`;
    const count = () => Number(Bun.spawnSync(["redis-cli", "-u", redis.url, "get", redisKey], { stdout: "pipe" }).stdout.toString().trim() || 0);
    const before = count();
    for (let i = 0; i < 3; i++) ok(await t.call("/v1/assets", { key }), 200);
    expect(count()).toBe(before + 3);
    // Another process sharing Redis used up the minute: this one refuses too.
    Bun.spawnSync(["redis-cli", "-u", redis.url, "set", redisKey, String(RATE), "PX", "60000"]);
    const refused = await t.call("/v1/assets", { key });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("RATE_LIMITED");
  });
});
