/** doctor/shared: the engines of a shared store (docs/scale-out.md) — PostgreSQL at DATABASE_URL, Redis at REDIS_URL,
 * the bucket at S3_BUCKET — each asked one question that changes nothing: no table is created, no migration applied. */
import { S3Client, SQL } from "bun";
import type { Config } from "../config";
import { RedisCounters, redisAddress } from "../http/redis-counters";
import { within } from "../render/timeout";
import { databaseAddress } from "../store/copy-rows";
import { s3Settings } from "../store/open-files";
import { allMigrationsPending, fail, migrationsCheck, ok, type CheckResult } from "./result";

// A host that drops packets must not hold doctor for the driver's default 30 s; a few seconds answer any reachable one.
const CONNECT_TIMEOUT_S = 5;
const BUCKET_TIMEOUT_MS = 5_000;

// The driver's message with its code: "Failed to connect" alone does not say the port refused.
function reason(e: unknown): string {
  const { message, code } = e as { message?: string; code?: string };
  return code && code !== message ? `${message} (${code})` : String(message ?? e);
}

/** checkPostgres asks DATABASE_URL for its server version and its newest applied migration. */
export async function checkPostgres(url: string): Promise<CheckResult[]> {
  const address = databaseAddress(url);
  const sql = new SQL(url, { max: 1, connectionTimeout: CONNECT_TIMEOUT_S });
  try {
    const [{ server_version: version }] = await sql`SHOW server_version`;
    const [{ present }] = await sql`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`;
    const [level] = present ? await sql`SELECT version, name FROM schema_migrations ORDER BY version DESC LIMIT 1` : [];
    const store = ok("store", `PostgreSQL ${version} at ${address}`);
    // A database serve has not migrated yet is a new store: serve makes it on its first start.
    return [store, level ? migrationsCheck({ version: Number(level.version), name: level.name }) : allMigrationsPending()];
  } catch (e) {
    return [fail("store", `PostgreSQL at ${address}: ${reason(e)}. Check DATABASE_URL and that the server is up.`), fail("migrations", "unknown: the store does not open")];
  } finally {
    await sql.close();
  }
}

/** checkRedis sends PING to REDIS_URL, as serve's /health does. */
export async function checkRedis(url: string): Promise<CheckResult> {
  const address = redisAddress(url);
  const redis = new RedisCounters(url);
  try {
    if (await redis.ping()) return ok("redis", `PING answered at ${address}`);
    return fail("redis", `Redis at ${address} did not answer PING: check REDIS_URL (address, password, database) and that the server is up.`);
  } finally {
    redis.close();
  }
}

/** checkBucket lists one key of S3_BUCKET: a bucket that does not exist or refuses the credentials fails. */
export async function checkBucket(config: Config): Promise<CheckResult> {
  const settings = s3Settings(config)!;
  const where = `bucket ${settings.bucket} at ${settings.endpoint ?? `AWS region ${settings.region}`}`;
  try {
    const listed = await within(new S3Client(settings).list({ maxKeys: 1 }), BUCKET_TIMEOUT_MS);
    if (listed === null) return fail("bucket", `${where} did not answer within ${BUCKET_TIMEOUT_MS / 1000} s: check S3_ENDPOINT and the network.`);
    return ok("bucket", `${where} answers`);
  } catch (e) {
    return fail("bucket", `${where}: ${reason(e)}. Check S3_BUCKET, S3_ENDPOINT/S3_REGION and the S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY pair.`);
  }
}
