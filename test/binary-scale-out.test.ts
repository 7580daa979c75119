/** binary-scale-out: the compiled binary (dist/renderd) on a shared store — PostgreSQL, an S3-compatible bucket and
 * Redis. Bun's SQL, S3Client and RedisClient are the runtime's own, and this shows they work inside `bun build --compile`
 * output (the PostgreSQL store's worker thread included). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { S3Client } from "bun";
import { ROOT, startServe, type ServeProcess } from "./serve-process";
import { startRedis, type TestRedis } from "./http/redis-server";
import { startS3, type TestBucket } from "./store/s3-server";
import { sharedStoreEnv } from "./backends";
import { until } from "./wait";

let bucket: TestBucket;
let redis: TestRedis;
let serve: ServeProcess;

beforeAll(async () => {
  if (!existsSync(join(ROOT, "dist/renderd"))) {
    const build = Bun.spawnSync([process.execPath, "run", "scripts/build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect(build.exitCode, build.stderr.toString()).toBe(0);
  }
  [bucket, redis] = await Promise.all([startS3(), startRedis()]);
  const s3 = bucket.settings;
  serve = await startServe([join(ROOT, "dist/renderd")], {
    ...(await sharedStoreEnv()),
    S3_BUCKET: s3.bucket,
    S3_ENDPOINT: s3.endpoint!,
    S3_REGION: s3.region!,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    REDIS_URL: redis.url,
  });
}, 120_000);
afterAll(async () => {
  await serve?.stop();
  await Promise.all([bucket?.stop(), redis?.stop()]);
});

test("dist/renderd keeps a render in PostgreSQL and its PDF in the bucket, streams it back, and counts requests in Redis", async () => {
  const key = await serve.makeKey(["render:create", "render:read"]);
  const render = await serve.call("/v1/renders?wait=30", key, { html: "<p>printed by the binary</p>" });
  expect([render.status, render.body.status]).toEqual([200, "succeeded"]);
  const address = new URL(render.body.result.downloadUrl);
  const pdf = await fetch(`${serve.url}${address.pathname}${address.search}`, { redirect: "manual" });
  expect(pdf.status).toBe(200);
  const bytes = new Uint8Array(await pdf.arrayBuffer());
  const sha = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  // Written to the bucket just after the render's end, which committed it spooled in the store (store/output-spool.ts).
  await until(() => new S3Client(bucket.settings).exists(`outputs/${sha.slice(0, 2)}/${sha.slice(2, 4)}/${sha}`), 10_000);
  // The render is a row of the PostgreSQL store, where any other process sharing it reads it.
  const store = await serve.openStore();
  try {
    expect([store.engine, await store.get("SELECT status, output_sha256 FROM renders WHERE id = $id", { id: render.body.id })]).toEqual(["postgres", { status: "succeeded", output_sha256: sha }]);
  } finally {
    await store.close();
  }
  const keys = Bun.spawnSync(["redis-cli", "-u", redis.url, "--scan", "--pattern", "renderd:rate:api:*"], { stdout: "pipe" }).stdout.toString().trim();
  expect(keys).not.toBe("");
  // /health asks Redis too (PING through the compiled binary's RedisClient).
  const health = await fetch(`${serve.url}/health`);
  expect([health.status, await health.json()]).toEqual([200, { status: "ok" }]);
});
