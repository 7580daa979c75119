/**
 * migrate --to-postgres: an appliance's store, made through the API and the services (a render completed through the
 * queue without printing: no Chromium), copied by `bun cli/main.ts migrate --to-postgres` into a throw-away PostgreSQL
 * cluster and an s3rver bucket, then compared row by row and file by file; refusals and failures leave PostgreSQL empty.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client, SQL } from "bun";
import { CLI_ACTOR } from "../../src/auth/actor";
import { referencedFiles } from "../../src/backup/snapshot";
import { sha256Hex } from "../../src/lib/hash";
import { createApiKey } from "../../src/modules/api-keys/service";
import { createUser, hashPassword } from "../../src/modules/users/service";
import { createWorkspace } from "../../src/modules/workspaces/service";
import { tablesInKeyOrder } from "../../src/store/copy-rows";
import { openStore, storePath } from "../../src/store/open";
import { buildApi, type InProcessApi } from "../api/in-process";
import { PDF, PNG } from "../fixtures/assets";
import { startPostgres, type TestPostgres } from "../store/postgres-server";
import { startS3, type TestBucket } from "../store/s3-server";
import { startRedis } from "../http/redis-server";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/logger";
import { startServer } from "../../src/server";
import { RECEIVER_ENV } from "../webhooks/receiver";

const ROOT = join(import.meta.dir, "../..");
const PUBLIC_URL = "http://console.example.test";
const PASSWORD = "a-password-for-the-move-1";
const APPLIANCE_SECRET_KEY = "a-secret-key-of-thirty-two-characters-at-least";

let pg: TestPostgres;
let s3: TestBucket;
let dataDir: string;
const work = mkdtempSync(join(tmpdir(), "renderd-to-pg-"));

interface Run {
  code: number;
  out: string;
  err: string;
}

function s3Env(settings = s3.settings): Record<string, string> {
  return { S3_BUCKET: settings.bucket, S3_ENDPOINT: settings.endpoint!, S3_REGION: settings.region!, S3_ACCESS_KEY_ID: settings.accessKeyId, S3_SECRET_ACCESS_KEY: settings.secretAccessKey };
}

/** renderd runs `bun cli/main.ts ...args` as its own process, with the given target. */
async function renderd(args: string[], env: Record<string, string>): Promise<Run> {
  const p = Bun.spawn([process.execPath, "cli/main.ts", ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "silent", ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

// The password is not checked on trust authentication: it is there to prove it is never printed.
function withPassword(url: string): string {
  const u = new URL(url);
  u.password = "pg-secret-word";
  return u.toString();
}

/** makeAppliance fills a DATA_DIR through the API and the services, then closes it (nothing holds the store open). */
async function makeAppliance(): Promise<string> {
  // buildApi reads no secret.key: the session cookie is signed with this one.
  const app = await buildApi({ PUBLIC_URL, SECRET_KEY: APPLIANCE_SECRET_KEY, ...RECEIVER_ENV });
  try {
    await fill(app);
  } catch (e) {
    await app.close();
    throw e;
  }
  await app.close(true);
  return app.dataDir;
}

// The rows the issue names, through the routes where they have one and the services where they do not.
async function fill(app: InProcessApi): Promise<void> {
  const { store, clock, files, queue } = app;
  const ctx = { actor: CLI_ACTOR, requestId: "test-setup" };
  const passwordHash = await hashPassword(PASSWORD);
  const ws = await store.tx(async (tx) => {
    const made = await createWorkspace(tx, clock, ctx, { name: "Moving", slug: "moving" });
    await createUser(tx, clock, ctx, { email: "Owner@Example.test", passwordHash, workspace: made.id, role: "owner", platformAdmin: true });
    return made.id;
  });
  const key = (await createApiKey(store, clock, ctx, ws, {
    name: "ops",
    scopes: ["template:read", "template:write", "template:publish", "render:create", "render:read", "asset:manage", "webhook:manage"],
  })).secret;
  const call = async (path: string, init: { method?: string; body?: unknown; raw?: BodyInit; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { "x-api-key": key, ...init.headers };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const res = await app.api.handle(
      new Request(PUBLIC_URL + path, { method: init.method ?? (init.body !== undefined ? "POST" : "GET"), headers, body: init.raw ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined) }),
      "127.0.0.1",
    );
    return { status: res.status, body: (await res.json().catch(() => null)) as any, headers: res.headers };
  };
  // A session row, through the sign-in route.
  expect((await call("/v1/auth/sign-in", { body: { email: "owner@example.test", password: PASSWORD } })).status).toBe(200);
  const reg = await call("/v1/assets", { body: { kind: "image", mediaType: "image/png", filename: "pixel.png", size: PNG.byteLength, sha256: sha256Hex(PNG) } });
  expect(reg.status).toBe(201);
  const upload = new URL(reg.body.uploadUrl);
  expect((await call(upload.pathname + upload.search, { method: "PUT", raw: PNG, headers: reg.body.uploadHeaders })).status).toBe(200);
  const template = await call("/v1/templates", { body: { name: "Note", content: { type: "text", text: "Hello before the move" } } });
  expect(template.status).toBe(201);
  expect((await call(`/v1/templates/${template.body.id}/publish`, { method: "POST" })).status).toBe(201);
  expect((await call("/v1/webhook-endpoints", { body: { url: "http://127.0.0.1:9/hook", eventTypes: ["render.succeeded"] } })).status).toBe(201);
  const render = await call("/v1/renders", { body: { templateId: template.body.id } });
  expect(render.status).toBe(202);
  // The render completes through the queue, as the worker would after printing: PDF stored, usage counted, events written.
  const claim = await queue.claim();
  expect(claim?.renderId).toBe(render.body.id);
  const output = await files.put("outputs", claim!.renderId, PDF);
  expect((await store.tx((tx) => queue.complete(tx, claim!.renderId, { outputSha256: output, pages: 1, bytes: PDF.byteLength })))?.status).toBe("succeeded");
  // A limit past 2^53 (a number would lose its last digit): the copy must carry it whole.
  await store.tx((tx) => tx.run("UPDATE workspaces SET max_storage_bytes = 9007199254740993"));
}

// One after the other: each is kept as soon as it is up, so afterAll stops whatever started if a later one fails.
beforeAll(async () => {
  pg = await startPostgres();
  s3 = await startS3();
  dataDir = await makeAppliance();
});

afterAll(async () => {
  await pg?.stop();
  await s3?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

// A value as both engines spell it: Bun's SQL answers bigint as a string, bun:sqlite answers a number.
const spelled = (v: unknown) => (v === null ? null : String(v));

function sqliteRows(db: Database, table: string): string[] {
  return (db.query(`SELECT * FROM "${table}"`).safeIntegers(true).all() as Record<string, unknown>[]).map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, spelled(v)]))).sort();
}

async function postgresRows(sql: SQL, table: string, columns: string[]): Promise<string[]> {
  const rows = (await sql`SELECT * FROM ${sql(table)}`) as Record<string, unknown>[];
  return rows.map((r) => JSON.stringify(columns.map((c) => [c, spelled(r[c])]))).sort();
}

async function rowCounts(url: string, tables: string[]): Promise<number[]> {
  const sql = new SQL(url);
  try {
    return await Promise.all(tables.map(async (t) => Number((await sql`SELECT count(*) AS n FROM ${sql(t)}`)[0].n)));
  } finally {
    await sql.close();
  }
}

function withSource<T>(fn: (db: Database) => T): T {
  const db = new Database(storePath(dataDir), { readonly: true, strict: true });
  try {
    return fn(db);
  } finally {
    db.close(false);
  }
}

describe("renderd migrate --to-postgres", () => {
  test("copies every row of every table and every file, sha256 checked, and prints no secret", async () => {
    const r = await renderd(["migrate", "--to-postgres", "--data-dir", dataDir], { DATABASE_URL: withPassword(pg.url), ...s3Env() });
    expect(r.err).toMatch(/rows: workspaces 1\n/);
    expect(r.err).toMatch(/files: 2\/2, \d+ B sent\n/);
    expect(r.err).toContain(`note: start every process on the new store with SECRET_KEY set to this appliance's key (${join(dataDir, "secret.key")})`);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^copied \d+ rows in \d+ tables to postgres:\/\/127\.0\.0\.1:\d+\/renderd and 2 files \(.*\) to S3_BUCKET=renderd \(0 already there\)\n$/);
    for (const secret of ["pg-secret-word", "postgres@", s3.settings.secretAccessKey]) expect(r.out + r.err).not.toContain(secret);

    const { tables, expected, files } = withSource((db) => {
      const tables = tablesInKeyOrder(db);
      const columns = (t: string) => (db.query(`PRAGMA table_info("${t}")`).all() as { name: string }[]).map((c) => c.name);
      return { tables, expected: tables.map((t) => ({ table: t, columns: columns(t), rows: sqliteRows(db, t) })), files: referencedFiles(db) };
    });
    // The store holds what the issue names: workspaces, users, keys, sessions, assets, templates and versions, renders,
    // webhooks and their events, audit rows and usage counters.
    const counted = Object.fromEntries(expected.map((e) => [e.table, e.rows.length]));
    for (const t of ["workspaces", "users", "memberships", "api_keys", "sessions", "assets", "templates", "template_versions", "renders", "webhook_endpoints", "webhook_events", "audit_events", "usage_days"])
      expect({ t, n: counted[t]! > 0 }).toEqual({ t, n: true });
    const sql = new SQL(pg.url);
    try {
      for (const e of expected) expect({ table: e.table, rows: await postgresRows(sql, e.table, e.columns) }).toEqual({ table: e.table, rows: e.rows });
      expect((await sql`SELECT max_storage_bytes FROM workspaces`)[0].max_storage_bytes).toBe("9007199254740993");
      // users.email keeps its case-blind equality on PostgreSQL.
      expect((await sql`SELECT count(*) AS n FROM users WHERE email = 'OWNER@example.test'`)[0].n).toBe("1");
    } finally {
      await sql.close();
    }
    expect(tables.length).toBe(expected.length);
    const bucket = new S3Client(s3.settings);
    expect(files.length).toBe(2);
    for (const path of files) expect(sha256Hex(await bucket.file(path).bytes())).toBe(path.split("/").at(-1)!);
  });

  test("serve starts on the copy: the owner signs in with the appliance's password, and the render's PDF downloads from the bucket", async () => {
    // A copy of its own, so the rows serving writes (a session, its audit row) leave the other tests' copy as it was.
    const database = await pg.database("served");
    expect((await renderd(["migrate", "--to-postgres", "--data-dir", dataDir], { DATABASE_URL: database, ...s3Env() })).code).toBe(0);
    const redis = await startRedis();
    const server = await startServer({
      config: loadConfig({
        DATA_DIR: mkdtempSync(join(work, "host-")),
        DATABASE_URL: database,
        REDIS_URL: redis.url,
        ...s3Env(),
        SECRET_KEY: APPLIANCE_SECRET_KEY,
        PUBLIC_URL,
        PORT: "0",
        INTERNAL_PORT: "0",
        HOST: "127.0.0.1",
        RENDER_WORKERS: "1",
        // The appliance's render ended on its manual clock in March: a month's retention would sweep it at start.
        RETENTION_DAYS: "3650",
        LOG_LEVEL: "silent",
      }),
      log: createLogger("silent"),
    });
    try {
      const signIn = await fetch(`${server.url}/v1/auth/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "owner@example.test", password: PASSWORD }) });
      expect(signIn.status).toBe(200);
      const cookie = (signIn.headers.get("set-cookie"))!.split(";")[0]!;
      const renders = await (await fetch(`${server.url}/v1/renders`, { headers: { cookie } })).json();
      expect(renders.items, JSON.stringify(renders)).toHaveLength(1);
      expect(renders.items[0].status).toBe("succeeded");
      const url = new URL(renders.items[0].result.downloadUrl, server.url);
      const pdf = await fetch(`${server.url}${url.pathname}${url.search}`);
      expect(pdf.status).toBe(200);
      expect(new Uint8Array(await pdf.arrayBuffer())).toEqual(PDF);
    } finally {
      await server.stop();
      await redis.stop();
    }
  });

  test("a second run is refused with exit 2 and changes nothing; --force replaces the rows and skips the files already there", async () => {
    const tables = withSource(tablesInKeyOrder);
    const before = await rowCounts(pg.url, tables);
    const again = await renderd(["migrate", "--to-postgres", "--data-dir", dataDir], { DATABASE_URL: pg.url, ...s3Env() });
    expect(again.code).toBe(2);
    expect(again.err.trim().split("\n").at(-1)).toMatch(/^renderd: postgres:\/\/127\.0\.0\.1:\d+\/renderd already holds renderd data \(rows in workspaces\): point DATABASE_URL at an empty database, or add --force/);
    expect(await rowCounts(pg.url, tables)).toEqual(before);

    const forced = await renderd(["migrate", "--to-postgres", "--force", "--data-dir", dataDir, "--json"], { DATABASE_URL: pg.url, ...s3Env() });
    expect(forced.code).toBe(0);
    const summary = JSON.parse(forced.out);
    expect(summary.files).toEqual({ copied: 0, present: 2, bytes: 0, missing: [] });
    expect(summary.migrations).toEqual([]);
    expect(await rowCounts(pg.url, tables)).toEqual(before);
  });

  test("a bucket that refuses writes stops the copy before any row: PostgreSQL stays empty", async () => {
    const url = await pg.database("refused_bucket");
    const r = await renderd(["migrate", "--to-postgres", "--data-dir", dataDir], { DATABASE_URL: url, ...s3Env({ ...s3.settings, bucket: "no-such-bucket" }) });
    expect(r.code).toBe(1);
    expect(r.err.trim().split("\n").at(-1)).toMatch(/^renderd: copying the files to the bucket failed, no row was written to PostgreSQL: .*bucket does not exist/);
    const tables = withSource(tablesInKeyOrder);
    expect((await rowCounts(url, tables)).every((n) => n === 0)).toBe(true);
  });

  test("a row PostgreSQL refuses, late in the order, rolls the whole copy back", async () => {
    const broken = join(work, "broken");
    cpSync(dataDir, broken, { recursive: true });
    // SQLite checks no foreign key unless asked: a late table's row may point at a workspace that is not there.
    const planted = (() => {
      const db = new Database(storePath(broken), { strict: true });
      try {
        const tables = tablesInKeyOrder(db);
        const late = tables.findLast((t) => {
          const keys = db.query(`PRAGMA foreign_key_list("${t}")`).all() as { table: string }[];
          return keys.some((k) => k.table === "workspaces") && (db.query(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n > 0;
        })!;
        db.run(`UPDATE "${late}" SET workspace_id = 'wsp_gone' WHERE rowid = (SELECT max(rowid) FROM "${late}")`);
        return { late, tables };
      } finally {
        db.close(false);
      }
    })();
    expect(planted.tables.indexOf(planted.late)).toBeGreaterThan(planted.tables.indexOf("renders"));
    const url = await pg.database("planted_row");
    const r = await renderd(["migrate", "--to-postgres", "--data-dir", broken], { DATABASE_URL: url, ...s3Env() });
    expect(r.code).toBe(1);
    expect(r.err.trim().split("\n").at(-1)).toMatch(/^renderd: copying the rows failed and was rolled back: .*foreign key/);
    expect(r.err).toMatch(/rows: workspaces 1\n/);
    expect((await rowCounts(url, planted.tables)).every((n) => n === 0)).toBe(true);
  });

  test("a file whose bytes do not hash to its name stops the copy: it never reaches the bucket, PostgreSQL stays empty", async () => {
    const damaged = join(work, "damaged");
    cpSync(dataDir, damaged, { recursive: true });
    const [path] = withSource(referencedFiles).filter((p) => p.startsWith("outputs/"));
    writeFileSync(join(damaged, path!), "not the PDF that was stored");
    const url = await pg.database("damaged_file");
    const bucket = new S3Client(s3.settings);
    await bucket.delete(path!);
    const r = await renderd(["migrate", "--to-postgres", "--data-dir", damaged], { DATABASE_URL: url, ...s3Env() });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${path} does not hash to its name`);
    expect(await bucket.exists(path!)).toBe(false);
    expect((await rowCounts(url, withSource(tablesInKeyOrder))).every((n) => n === 0)).toBe(true);
  });

  test("a PDF the store holds spooled, its file not written yet, reaches the bucket as a file; PostgreSQL spools nothing", async () => {
    const spooled = join(work, "spooled");
    cpSync(dataDir, spooled, { recursive: true });
    const [path] = withSource(referencedFiles).filter((p) => p.startsWith("outputs/"));
    // As a serve leaves it when it stops between a render's end and writing the PDF's file (store/output-spool.ts).
    const db = new Database(storePath(spooled), { strict: true });
    try {
      db.query("INSERT INTO output_spool (sha256, bytes, spooled_at) VALUES ($sha, $bytes, '2026-03-10T10:00:00.000Z')").run({ sha: path!.split("/").at(-1)!, bytes: PDF });
    } finally {
      db.close(false);
    }
    rmSync(join(spooled, path!));
    const bucket = new S3Client(s3.settings);
    await bucket.delete(path!);
    const url = await pg.database("spooled_pdf");
    const r = await renderd(["migrate", "--to-postgres", "--data-dir", spooled, "--json"], { DATABASE_URL: url, ...s3Env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).files).toMatchObject({ copied: 1, present: 1, bytes: PDF.byteLength, missing: [] });
    expect(new Uint8Array(await bucket.file(path!).bytes())).toEqual(PDF);
    expect(await rowCounts(url, ["output_spool", "renders"])).toEqual([0, 1]);
  });

  test("a referenced file missing from DATA_DIR is named in a warning and left out; the rows are copied", async () => {
    const gone = join(work, "gone");
    cpSync(dataDir, gone, { recursive: true });
    const [path] = withSource(referencedFiles).filter((p) => p.startsWith("assets/"));
    rmSync(join(gone, path!));
    const url = await pg.database("missing_file");
    const r = await renderd(["migrate", "--to-postgres", "--data-dir", gone, "--json"], { DATABASE_URL: url, ...s3Env() });
    expect(r.code).toBe(0);
    expect(r.err).toContain(`renderd: warning: ${path} is referenced by the store but not under DATA_DIR: left out\n`);
    const sha256 = path!.split("/").at(-1);
    const { files } = JSON.parse(r.out);
    expect(files.missing).toEqual([{ area: "assets", sha256 }]);
    // The PDF went over (or was there already, from an earlier test): only the asset is left out.
    expect(files.copied + files.present).toBe(1);
    expect(await rowCounts(url, ["assets", "renders"])).toEqual([1, 1]);
  });

  test("is refused while another process holds the store open, and without its target", async () => {
    const url = await pg.database("held_store");
    const held = openStore(dataDir);
    try {
      const r = await renderd(["migrate", "--to-postgres", "--data-dir", dataDir], { DATABASE_URL: url, ...s3Env() });
      expect(r.code).toBe(2);
      expect(r.err).toContain(`renderd: ${storePath(dataDir)} is open in process ${process.pid} (renderd serve?): stop it first`);
    } finally {
      await held.close();
    }
    expect(await renderd(["migrate", "--to-postgres", "--data-dir", dataDir], s3Env())).toMatchObject({ code: 2, err: expect.stringContaining("--to-postgres needs DATABASE_URL") });
    expect(await renderd(["migrate", "--to-postgres", "--data-dir", dataDir], { DATABASE_URL: url })).toMatchObject({ code: 2, err: expect.stringContaining("--to-postgres needs S3_BUCKET") });
    for (const bad of ["mysql://u:pg-secret-word@host/db", "postgres://u:pg-secret-word@[oops/db"])
      expect(await renderd(["migrate", "--to-postgres", "--data-dir", dataDir], { DATABASE_URL: bad, ...s3Env() })).toEqual({
        code: 2,
        out: "",
        err: "renderd: DATABASE_URL is not allowed: use a postgres:// URL such as postgres://renderd:…@db.internal:5432/renderd.\n",
      });
    // Nothing answers on a closed port: the address is named, the password is not.
    const closed = await renderd(["migrate", "--to-postgres", "--data-dir", dataDir], { DATABASE_URL: "postgres://u:pg-secret-word@127.0.0.1:1/renderd", ...s3Env() });
    expect(closed.code).toBe(1);
    expect(closed.err).toMatch(/^renderd: postgres:\/\/127\.0\.0\.1:1\/renderd: applying the PostgreSQL migrations failed: /);
    expect(closed.err).not.toContain("pg-secret-word");
    // Everywhere else DATABASE_URL names the store, and a shared store needs its Redis, its bucket and an explicit key.
    expect(await renderd(["migrate", "--data-dir", dataDir], { DATABASE_URL: url })).toMatchObject({ code: 2, err: expect.stringContaining("needs REDIS_URL, S3_BUCKET, SECRET_KEY") });
    // Refused before PostgreSQL was touched: not even the schema is there.
    const sql = new SQL(url);
    try {
      expect((await sql`SELECT to_regclass('schema_migrations') AS t`)[0].t).toBeNull();
    } finally {
      await sql.close();
    }
  });
});
