/** doctor: `renderd doctor` as a real process — a healthy DATA_DIR passes, and each broken thing makes its own FAIL line.
 * Starts Chromium: run under the lock (flock /tmp/renderd-chromium.lock). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { sharedStoreEnv } from "../backends";
import { freePort } from "../serve-process";
import { startTestServer } from "../harness";
import { openStore } from "../../src/store/open";
import { MIGRATIONS } from "../../src/store/migrations";

const ROOT = join(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "renderd-doctor-"));
const dataDir = join(work, "data");

interface Report {
  code: number;
  lines: string[];
  line(check: string): string;
}

/** doctor runs `bun cli/main.ts doctor` without blocking this process (an in-process server must answer meanwhile). */
async function doctor(env: Record<string, string> = {}): Promise<Report> {
  const p = Bun.spawn([process.execPath, "cli/main.ts", "doctor"], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(await freePort()), INTERNAL_PORT: String(await freePort()), HOST: "127.0.0.1", LOG_LEVEL: "silent", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  const lines = out.trim().split("\n");
  return { code, lines, line: (check) => lines.find((l) => l.split(/\s+/)[1] === check) ?? `(no ${check} line)` };
}

beforeAll(() => {
  const r = Bun.spawnSync([process.execPath, "cli/main.ts", "migrate"], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir } });
  expect(r.exitCode).toBe(0);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("renderd doctor", () => {
  test("a healthy DATA_DIR passes: one line per check, none failing, exit 0", async () => {
    const r = await doctor();
    expect(r.code).toBe(0);
    expect(r.lines.map((l) => l.split(/\s+/)[1])).toEqual(["chromium", "fonts", "port", "internal-port", "data-dir", "secret-key", "store", "migrations"]);
    for (const l of r.lines) expect(l).toMatch(/^(ok  |WARN)  /);
    expect(r.line("chromium")).toMatch(/^ok\s+chromium\s+Chromium \d+\.[\d.]+ starts \(.+\)$/);
    expect(r.line("chromium")).toEndWith(`(${process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"})`);
    expect(r.line("secret-key")).toMatch(/secret\.key is mode 0600$/);
    expect(r.line("store")).toMatch(/quick_check ok$/);
    expect(r.line("migrations")).toMatch(/applied, the newest this binary embeds$/);
  });

  test("a secret key others can read fails its line", async () => {
    chmodSync(join(dataDir, "secret.key"), 0o644);
    try {
      const r = await doctor({ CHROMIUM_PATH: "/nonexistent/chromium" });
      expect(r.code).toBe(1);
      expect(r.line("secret-key")).toMatch(/^FAIL\s+secret-key\s+.*secret\.key is mode 0644: other users can read it; run chmod 600 /);
    } finally {
      chmodSync(join(dataDir, "secret.key"), 0o600);
    }
  });

  test("a missing Chromium fails its line, naming CHROMIUM_PATH", async () => {
    const r = await doctor({ CHROMIUM_PATH: "/nonexistent/chromium" });
    expect(r.code).toBe(1);
    expect(r.line("chromium")).toMatch(/^FAIL\s+chromium\s+Chromium at \/nonexistent\/chromium did not start: no executable file there \(CHROMIUM_PATH\)\.$/);
    expect(r.lines.filter((l) => l.startsWith("FAIL"))).toHaveLength(1);
  });

  test("a port another process holds fails its line", async () => {
    const holder = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const r = await doctor({ CHROMIUM_PATH: "/nonexistent/chromium", PORT: String(holder.port) });
      expect(r.code).toBe(1);
      expect(r.line("port")).toBe(
        `FAIL  port           ${holder.port} on 127.0.0.1 is taken by another process: stop it, or set PORT to a free port.`,
      );
      expect(r.line("internal-port")).toMatch(/^ok\s+internal-port\s+\d+ on 127\.0\.0\.1 is free$/);
    } finally {
      holder.stop(true);
    }
  });

  test("ports held by the renderd serving this DATA_DIR are fine; held by one serving another DATA_DIR, they fail", async () => {
    const served = join(work, "served");
    const t = await startTestServer({ RENDER_WORKERS: "1" }, served);
    try {
      const r = await doctor({ DATA_DIR: served, PORT: String(t.server.port), INTERNAL_PORT: String(t.server.internalPort) });
      expect(r.line("port")).toMatch(new RegExp(`^ok\\s+port\\s+${t.server.port} is held by the renderd serving this DATA_DIR \\(its /health/live answers on ${t.server.internalPort}\\)$`));
      expect(r.line("internal-port")).toMatch(/^ok\s+internal-port\s+\d+ is held by the renderd serving this DATA_DIR/);
      expect(r.code).toBe(0);
      // The same ports, asked about another DATA_DIR: that serve could not start there.
      const other = await doctor({ CHROMIUM_PATH: "/nonexistent/chromium", PORT: String(t.server.port), INTERNAL_PORT: String(t.server.internalPort) });
      expect(other.line("port")).toMatch(new RegExp(`^FAIL\\s+port\\s+${t.server.port} is held by a renderd serving another DATA_DIR \\(its /health/live answers on ${t.server.internalPort}\\): stop it, or set PORT to a free port\\.$`));
      expect(other.line("internal-port")).toMatch(/^FAIL\s+internal-port\s+\d+ is held by a renderd serving another DATA_DIR/);
    } finally {
      await t.stop();
      rmSync(served, { recursive: true, force: true });
    }
  });

  test("a store newer than the binary fails the migrations line; a DATA_DIR not made yet passes", async () => {
    const store = openStore(dataDir);
    await store.tx((tx) => tx.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future', '2030-01-01T00:00:00.000Z')"));
    await store.close();
    try {
      const r = await doctor({ CHROMIUM_PATH: "/nonexistent/chromium" });
      expect(r.line("migrations")).toMatch(/^FAIL\s+migrations\s+the store is at migration 9999, newer than this binary \(\d+\): upgrade renderd\.$/);
    } finally {
      const s = openStore(dataDir);
      await s.tx((tx) => tx.run("DELETE FROM schema_migrations WHERE version = 9999"));
      await s.close();
    }
    const fresh = await doctor({ CHROMIUM_PATH: "/nonexistent/chromium", DATA_DIR: join(work, "not-yet") });
    expect(fresh.line("data-dir")).toMatch(/not-yet does not exist yet; serve creates it in .*, which is writable/);
    expect(fresh.line("store")).toMatch(/^ok\s+store\s+no store yet/);
    expect(fresh.lines.filter((l) => l.startsWith("FAIL")).map((l) => l.split(/\s+/)[1])).toEqual(["chromium"]);
  });

  test("the data-dir line warns, without failing, when DATA_DIR has less free than STORAGE_MIN_FREE_BYTES", async () => {
    const r = await doctor({ CHROMIUM_PATH: "/nonexistent/chromium", STORAGE_MIN_FREE_BYTES: String(2 ** 50) });
    expect(r.line("data-dir")).toMatch(
      new RegExp(`^WARN\\s+data-dir\\s+${dataDir} is writable, but only [\\d.]+ GB free \\(\\d+ bytes\\), under STORAGE_MIN_FREE_BYTES \\(${2 ** 50}\\): serve refuses new renders, uploads and templates \\(503\\) until more is free; reads go on\\.$`),
    );
    expect(r.lines.filter((l) => l.startsWith("FAIL")).map((l) => l.split(/\s+/)[1])).toEqual(["chromium"]);
  });

  test("--json answers the same checks for scripts", async () => {
    const r = Bun.spawnSync([process.execPath, "cli/main.ts", "doctor", "--json", "--chromium-path", "/nonexistent/chromium", "--port", "0", "--internal-port", "0"], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir },
    });
    expect(r.exitCode).toBe(1);
    const checks = JSON.parse(r.stdout.toString());
    expect(checks.find((c: any) => c.check === "chromium")).toMatchObject({ status: "fail" });
    expect(checks.find((c: any) => c.check === "port")).toEqual({ check: "port", status: "ok", detail: "PORT=0: serve takes any free port" });
  });
});

describe("renderd doctor on the shared engines (DATABASE_URL, REDIS_URL, S3_BUCKET)", () => {
  const names = (r: Report) => r.lines.map((l) => l.split(/\s+/)[1]);

  test("a healthy shared store passes with its store, migrations, redis and bucket lines; DATA_DIR's SQLite file is not checked", async () => {
    const env = await sharedStoreEnv();
    const fresh = await doctor(env);
    expect(fresh.code).toBe(0);
    expect(names(fresh)).toEqual(["chromium", "fonts", "port", "internal-port", "data-dir", "secret-key", "store", "migrations", "redis", "bucket"]);
    const database = new URL(env.DATABASE_URL!).pathname;
    expect(fresh.line("store")).toMatch(new RegExp(`^ok\\s+store\\s+PostgreSQL \\d+[.\\d]* .*at postgres://127\\.0\\.0\\.1:\\d+${database}$`));
    expect(fresh.line("migrations")).toMatch(new RegExp(`^ok\\s+migrations\\s+serve applies all ${MIGRATIONS.length}, up to ${MIGRATIONS.at(-1)!.name}$`));
    expect(fresh.line("redis")).toMatch(/^ok\s+redis\s+PING answered at redis:\/\/127\.0\.0\.1:\d+$/);
    expect(fresh.line("bucket")).toBe(`ok    bucket         bucket ${env.S3_BUCKET} at ${env.S3_ENDPOINT} answers`);
    // Doctor created nothing: the database is still empty.
    const sql = new SQL(env.DATABASE_URL!);
    try {
      expect((await sql`SELECT to_regclass('schema_migrations') AS t`)[0].t).toBeNull();
      // Not spawnSync: the bucket's server runs in this process and must keep answering.
      const migrate = Bun.spawn([process.execPath, "cli/main.ts", "migrate"], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, ...env }, stdout: "ignore", stderr: "ignore" });
      expect(await migrate.exited).toBe(0);
      const current = await doctor({ ...env, CHROMIUM_PATH: "/nonexistent/chromium" });
      expect(current.line("migrations")).toBe(`ok    migrations     ${MIGRATIONS.at(-1)!.name} applied, the newest this binary embeds`);
      await sql`INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future', '2030-01-01T00:00:00.000Z')`;
      const newer = await doctor({ ...env, CHROMIUM_PATH: "/nonexistent/chromium" });
      expect(newer.line("migrations")).toMatch(/^FAIL\s+migrations\s+the store is at migration 9999, newer than this binary \(\d+\): upgrade renderd\.$/);
    } finally {
      await sql.close();
    }
  });

  test("a DATABASE_URL nothing answers fails the store line, naming the address without the password", async () => {
    const port = await freePort();
    const r = await doctor({ ...(await sharedStoreEnv()), DATABASE_URL: `postgres://renderd:hunter2-secret@127.0.0.1:${port}/renderd`, CHROMIUM_PATH: "/nonexistent/chromium" });
    expect(r.code).toBe(1);
    expect(r.line("store")).toBe(`FAIL  store          PostgreSQL at postgres://127.0.0.1:${port}/renderd: Failed to connect (ERR_POSTGRES_CONNECTION_REFUSED). Check DATABASE_URL and that the server is up.`);
    expect(r.line("migrations")).toMatch(/^FAIL\s+migrations\s+unknown/);
    expect(r.lines.join("\n")).not.toContain("hunter2");
  });

  test("a REDIS_URL nothing answers fails the redis line", async () => {
    const port = await freePort();
    const r = await doctor({ ...(await sharedStoreEnv()), REDIS_URL: `redis://:hunter2-secret@127.0.0.1:${port}/0`, CHROMIUM_PATH: "/nonexistent/chromium" });
    expect(r.code).toBe(1);
    expect(r.line("redis")).toMatch(new RegExp(`^FAIL\\s+redis\\s+Redis at redis://127\\.0\\.0\\.1:${port} did not answer PING: `));
    expect(r.line("store")).toMatch(/^ok\s+store\s+PostgreSQL/);
    expect(r.lines.join("\n")).not.toContain("hunter2");
  });

  test("a bucket that does not exist fails the bucket line, naming the bucket and endpoint, never the secret", async () => {
    const env = await sharedStoreEnv();
    const r = await doctor({ ...env, S3_BUCKET: "no-such-bucket", S3_SECRET_ACCESS_KEY: "hunter2-secret", CHROMIUM_PATH: "/nonexistent/chromium" });
    expect(r.code).toBe(1);
    expect(r.line("bucket")).toStartWith(`FAIL  bucket         bucket no-such-bucket at ${env.S3_ENDPOINT}: The specified bucket does not exist (NoSuchBucket). `);
    expect(r.lines.join("\n")).not.toContain("hunter2");
  });

  test("S3_BUCKET without DATABASE_URL: the SQLite store is checked, and the bucket too (serve keeps files there)", async () => {
    const { S3_BUCKET, S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } = await sharedStoreEnv();
    const r = await doctor({ S3_BUCKET: S3_BUCKET!, S3_ENDPOINT: S3_ENDPOINT!, S3_REGION: S3_REGION!, S3_ACCESS_KEY_ID: S3_ACCESS_KEY_ID!, S3_SECRET_ACCESS_KEY: S3_SECRET_ACCESS_KEY!, CHROMIUM_PATH: "/nonexistent/chromium" });
    expect(names(r).slice(-3)).toEqual(["store", "migrations", "bucket"]);
    expect(r.line("store")).toMatch(/quick_check ok$/);
    expect(r.line("bucket")).toBe(`ok    bucket         bucket ${S3_BUCKET} at ${S3_ENDPOINT} answers`);
  });
});

test("doctor --help offers serve's settings as flags", () => {
  const out = Bun.spawnSync([process.execPath, "cli/main.ts", "doctor", "--help"], { cwd: ROOT }).stdout.toString();
  for (const flag of ["--data-dir", "--port", "--internal-port", "--chromium-path", "--secret-key", "--json"]) expect(out).toContain(flag);
});
