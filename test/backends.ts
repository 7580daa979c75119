/** backends: the engines of a shared store for tests — a PostgreSQL cluster, a redis-server and an s3rver — started once
 * per test process on first use and gone with it. `sharedStoreEnv()` answers the settings of a new, empty store on them:
 * its own database and its own bucket. `RENDERD_TEST_STORE=postgres` runs the harness's servers on them (.ci/run runs
 * the API suite so, after the SQLite run). */
import { startRedis, type TestRedis } from "./http/redis-server";
import { startPostgres, type TestPostgres } from "./store/postgres-server";
import { startS3, type TestBucket } from "./store/s3-server";

interface Backends {
  postgres: TestPostgres;
  redis: TestRedis;
  s3: TestBucket;
}

let backends: Promise<Backends> | undefined;
let stores = 0;

// Processes sharing a store must share SECRET_KEY (docs/scale-out.md); any 32 characters do for tests.
export const TEST_SECRET_KEY = "test-secret-key-0123456789abcdefghij";

// Each store counts in a Redis database of its own, as separate deployments would: the sign-in limiter of one test's
// server must not see another's attempts from the same loopback address.
const REDIS_DATABASES = 10_000;

async function start(): Promise<Backends> {
  const [postgres, redis, s3] = await Promise.all([startPostgres(), startRedis(undefined, REDIS_DATABASES), startS3()]);
  return { postgres, redis, s3 };
}

/** sharedPostgres answers the run's PostgreSQL cluster (started on first use), for tests that make databases of their own. */
export async function sharedPostgres(): Promise<TestPostgres> {
  return (await (backends ??= start())).postgres;
}

/** stopBackends stops what sharedStoreEnv started; test/preload.ts calls it once after every test file has run (bun
 * test emits no process "exit" its children could be stopped on). */
export async function stopBackends(): Promise<void> {
  const started = backends;
  backends = undefined;
  if (!started) return;
  const { postgres, redis, s3 } = await started;
  await Promise.all([postgres.stop(), redis.stop(), s3.stop()]);
}

/** testStoreEngine answers which engine the harness's servers use: RENDERD_TEST_STORE=postgres, else SQLite. */
export function testStoreEngine(): "sqlite" | "postgres" {
  return process.env.RENDERD_TEST_STORE === "postgres" ? "postgres" : "sqlite";
}

/** sharedStoreEnv answers DATABASE_URL, REDIS_URL, S3_* and SECRET_KEY of a new, empty shared store. */
export async function sharedStoreEnv(): Promise<Record<string, string>> {
  const { postgres, redis, s3 } = await (backends ??= start());
  const n = ++stores;
  const database = await postgres.database(`store_${n}`);
  // s3rver checks no signature: an unsigned PUT makes the bucket.
  const bucket = `store-${n}`;
  const made = await fetch(`${s3.settings.endpoint}/${bucket}`, { method: "PUT" });
  if (!made.ok) throw new Error(`s3rver did not make bucket ${bucket}: ${made.status}`);
  const settings = { ...s3.settings, bucket };
  return {
    DATABASE_URL: database,
    REDIS_URL: `${redis.url}/${n % REDIS_DATABASES}`,
    S3_BUCKET: bucket,
    S3_ENDPOINT: settings.endpoint!,
    S3_REGION: settings.region!,
    S3_ACCESS_KEY_ID: settings.accessKeyId,
    S3_SECRET_ACCESS_KEY: settings.secretAccessKey,
    SECRET_KEY: TEST_SECRET_KEY,
  };
}
