import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, ensureDataDir, loadConfig } from "../src/config";

describe("loadConfig", () => {
  test("defaults follow DESIGN.md 1", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      internalPort: 8081,
      publicUrl: "http://localhost:8080",
      sessionCookieName: "renderd_session",
      chromiumPath: "/usr/bin/chromium",
      renderTimeoutMs: 30000,
      renderMaxPages: 500,
      renderMaxOutputBytes: 50_000_000,
      renderMaxInputBytes: 10_000_000,
      renderMaxWasmBytes: 16 * 1024 * 1024,
      renderMaxHeapBytes: 512 * 1024 * 1024,
      retentionDays: 30,
      webhookAllowHttp: false,
      webhookAllowPrivate: false,
      destinationAllowPrivate: false,
      trustedProxyRanges: [],
    });
  });

  test("the template converter's model is off unless TEMPLATE_CONVERTER_URL is set; a trailing slash is dropped", () => {
    expect(loadConfig({})).toMatchObject({ templateConverterUrl: undefined, templateConverterModel: "default" });
    expect(loadConfig({ TEMPLATE_CONVERTER_URL: "http://127.0.0.1:11434/v1/", TEMPLATE_CONVERTER_MODEL: "llama3" })).toMatchObject({
      templateConverterUrl: "http://127.0.0.1:11434/v1",
      templateConverterModel: "llama3",
    });
  });

  test("flags win over the environment", () => {
    expect(loadConfig({ PORT: "9000" }, { port: "9100" }).port).toBe(9100);
  });

  test.each([
    [{ PORT: "http" }, "PORT=http"],
    [{ PORT: "70000" }, "PORT=70000"],
    [{ RENDER_TIMEOUT_MS: "999" }, "RENDER_TIMEOUT_MS=999"],
    [{ RENDER_TIMEOUT_MS: "3600001" }, "RENDER_TIMEOUT_MS=3600001"],
    [{ RENDER_MAX_PAGES: "501" }, "RENDER_MAX_PAGES=501"],
    [{ RENDER_MAX_OUTPUT_BYTES: "50000001" }, "RENDER_MAX_OUTPUT_BYTES=50000001"],
    [{ RENDER_MAX_INPUT_BYTES: "10000001" }, "RENDER_MAX_INPUT_BYTES=10000001"],
    [{ API_RATE_LIMIT_PER_MINUTE: "0" }, "API_RATE_LIMIT_PER_MINUTE=0"],
    [{ TRUSTED_PROXY_RANGES: "10.0.0.0/33" }, "TRUSTED_PROXY_RANGES=10.0.0.0/33"],
    [{ TRUSTED_PROXY_RANGES: "proxy.local" }, "TRUSTED_PROXY_RANGES=proxy.local"],
    [{ WEBHOOK_ALLOW_HTTP: "maybe" }, "WEBHOOK_ALLOW_HTTP=maybe"],
    [{ TEMPLATE_CONVERTER_URL: "localhost:11434" }, "TEMPLATE_CONVERTER_URL=localhost:11434"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL=loud"],
    [{ PUBLIC_URL: "ftp://x" }, "PUBLIC_URL=ftp://x"],
    [{ SECRET_KEY: "short" }, "SECRET_KEY"],
    [{ SESSION_COOKIE_NAME: "a b" }, "SESSION_COOKIE_NAME=a b"],
    [{ RENDERD_ADMIN_PASSWORD: "123" }, "RENDERD_ADMIN_PASSWORD"],
    [{ RENDERD_ADMIN_EMAIL: "nobody" }, "RENDERD_ADMIN_EMAIL=nobody"],
  ])("%j is refused with a line naming %s", (env, start) => {
    let error: unknown;
    try {
      loadConfig(env as Record<string, string>);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message.startsWith(start)).toBe(true);
    expect(message).toContain("allowed");
    expect(message).not.toContain("\n");
  });

  describe("scale-out settings (docs/scale-out.md)", () => {
    const S3 = { S3_BUCKET: "renderd", S3_REGION: "eu-west-1", S3_ACCESS_KEY_ID: "AKIAEXAMPLE", S3_SECRET_ACCESS_KEY: "s3cr3t-value" };
    const SHARED = { ...S3, DATABASE_URL: "postgres://renderd:pg-pass-word@db/renderd", REDIS_URL: "redis://:redis-pass-word@cache:6379", SECRET_KEY: "shared-secret-key-0123456789abcdef" };
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error("accepted");
    };

    test("S3_* is accepted on its own for one process; DATABASE_URL with REDIS_URL, S3_* and SECRET_KEY is accepted; RENDER_LEASE_MS defaults to 30 s", () => {
      expect(loadConfig(S3)).toMatchObject({ s3Bucket: "renderd", s3Region: "eu-west-1", redisUrl: undefined, renderLeaseMs: 30_000 });
      expect(loadConfig({ ...S3, S3_REGION: "", S3_ENDPOINT: "http://127.0.0.1:9000" }).s3Endpoint).toBe("http://127.0.0.1:9000");
      expect(loadConfig(SHARED)).toMatchObject({ databaseUrl: SHARED.DATABASE_URL, redisUrl: SHARED.REDIS_URL, s3Bucket: "renderd", secretKey: SHARED.SECRET_KEY });
      expect(loadConfig({ ...SHARED, DATABASE_URL: "postgresql://db/renderd" }).databaseUrl).toBe("postgresql://db/renderd");
      expect(loadConfig({ RENDER_LEASE_MS: "60000" }).renderLeaseMs).toBe(60_000);
    });

    test("a bucket without its credentials or region is refused with one line naming what is missing, never a secret", () => {
      const { S3_SECRET_ACCESS_KEY: _, ...noSecret } = S3;
      expect(refusal(noSecret)).toBe("S3_BUCKET=renderd needs S3_SECRET_ACCESS_KEY: set it, or unset S3_BUCKET to keep files under DATA_DIR.");
      expect(refusal({ S3_BUCKET: "renderd" })).toBe(
        "S3_BUCKET=renderd needs S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_REGION (or S3_ENDPOINT): set them, or unset S3_BUCKET to keep files under DATA_DIR.",
      );
      const { S3_BUCKET: __, ...noBucket } = S3;
      const message = refusal(noBucket);
      expect(message).toStartWith("S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY are set but S3_BUCKET is not");
      expect(message).not.toContain("s3cr3t-value");
    });

    test.each([
      ["DATABASE_URL without REDIS_URL", { REDIS_URL: undefined }, "DATABASE_URL (a store shared by several processes) needs REDIS_URL:"],
      ["DATABASE_URL without S3_BUCKET", { S3_BUCKET: undefined }, "DATABASE_URL (a store shared by several processes) needs S3_BUCKET:"],
      ["DATABASE_URL without an explicit SECRET_KEY", { SECRET_KEY: undefined }, "DATABASE_URL (a store shared by several processes) needs SECRET_KEY:"],
      ["DATABASE_URL alone", { REDIS_URL: undefined, S3_BUCKET: undefined, SECRET_KEY: undefined }, "DATABASE_URL (a store shared by several processes) needs REDIS_URL, S3_BUCKET, SECRET_KEY:"],
      ["REDIS_URL without DATABASE_URL", { DATABASE_URL: undefined }, "REDIS_URL is set but DATABASE_URL is not:"],
      ["a DATABASE_URL that is not postgres://", { DATABASE_URL: "mysql://renderd:pg-pass-word@db/renderd" }, "DATABASE_URL is not allowed: use a postgres:// URL"],
      ["a REDIS_URL that is not redis://", { REDIS_URL: "http://user:hunter2@cache:6379" }, "REDIS_URL is not allowed: use a redis:// or rediss:// URL"],
    ])("%s is refused with one line saying why, echoing no password", (_, change, start) => {
      const env = Object.fromEntries(Object.entries({ ...SHARED, ...change }).filter(([, v]) => v !== undefined)) as Record<string, string>;
      const message = refusal(env);
      expect(message).toStartWith(start);
      expect(message).not.toContain("\n");
      for (const secret of ["pg-pass-word", "redis-pass-word", "hunter2", "s3cr3t-value", SHARED.SECRET_KEY]) expect(message).not.toContain(secret);
    });

    test("`migrate --to-postgres` takes DATABASE_URL as its copy target with only S3_BUCKET; the bucket's own rules still hold", () => {
      const target = { DATABASE_URL: "postgres://renderd:pg-pass-word@db/renderd", ...S3 };
      expect(loadConfig(target, {}, { databaseUrl: true })).toMatchObject({ databaseUrl: target.DATABASE_URL, redisUrl: undefined, s3Bucket: "renderd" });
      expect(() => loadConfig({ DATABASE_URL: "postgres://db/renderd", S3_BUCKET: "renderd" }, {}, { databaseUrl: true })).toThrow(/S3_BUCKET=renderd needs/);
      // It is exempt from the shared-store rule only: without the exemption the same settings are refused.
      expect(refusal(target)).toStartWith("DATABASE_URL (a store shared by several processes) needs REDIS_URL, SECRET_KEY:");
    });

    test("`renderd serve` on a refused combination exits 2 with one line on stderr, before opening anything", () => {
      const dataDir = mkdtempSync(join(tmpdir(), "renderd-config-"));
      try {
        for (const [env, start] of [
          [{ DATABASE_URL: "postgres://renderd:pg-pass-word@127.0.0.1:1/renderd", S3_BUCKET: "renderd" }, "DATABASE_URL (a store shared by several processes) needs REDIS_URL, SECRET_KEY"],
          [{ REDIS_URL: "redis://:redis-pass-word@127.0.0.1:1" }, "REDIS_URL is set but DATABASE_URL is not"],
        ] as const) {
          const r = Bun.spawnSync([process.execPath, "cli/main.ts", "serve", "--port", "0", "--internal-port", "0"], {
            cwd: join(import.meta.dir, ".."),
            env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DATA_DIR: dataDir, LOG_LEVEL: "silent", ...env },
            stdin: "ignore",
            stdout: "pipe",
            stderr: "pipe",
          });
          const err = r.stderr.toString();
          expect(r.exitCode).toBe(2);
          expect(err.trim().split("\n")).toHaveLength(1);
          expect(err).toContain(start);
          expect(err).not.toContain("pg-pass-word");
          expect(err).not.toContain("redis-pass-word");
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  test("TRUSTED_PROXY_RANGES takes IPv4 and IPv6 CIDR lists", () => {
    expect(loadConfig({ TRUSTED_PROXY_RANGES: "10.0.0.0/8, fd00::/8,192.0.2.1" }).trustedProxyRanges).toEqual(["10.0.0.0/8", "fd00::/8", "192.0.2.1"]);
  });
});

describe("ensureDataDir", () => {
  test("generates DATA_DIR/secret.key with mode 0600 once and reuses it", () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-config-"));
    try {
      const a = loadConfig({ DATA_DIR: dir });
      ensureDataDir(a);
      const file = join(dir, "secret.key");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(a.secretKey.length).toBeGreaterThanOrEqual(32);
      const b = loadConfig({ DATA_DIR: dir });
      ensureDataDir(b);
      expect(b.secretKey).toBe(a.secretKey);
      expect(readFileSync(file, "utf8").trim()).toBe(a.secretKey);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a SECRET_KEY given in the environment writes no file", () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-config-"));
    try {
      const c = loadConfig({ DATA_DIR: dir, SECRET_KEY: "k".repeat(40) });
      ensureDataDir(c);
      expect(() => statSync(join(dir, "secret.key"))).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
