/** config: every option of `renderd serve` declared once — name, environment twin, default, bounds, help. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import { parseCidrList } from "./lib/cidr";
import { passwordProblem, PASSWORD_RULE } from "./lib/passwords";

/** ConfigError is bad configuration: start-up prints its one line and exits non-zero. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

type Parser<T> = (raw: string, name: string) => T;

interface Option<T> {
  env: string;
  flag: string;
  help: string;
  /** Default, as the text a user would type; undefined = unset. */
  fallback: () => string | undefined;
  parse: Parser<T>;
}

function integer(min: number, max: number): Parser<number> {
  return (raw, name) => {
    if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name}=${raw} is not allowed: use a whole number from ${min} to ${max}.`);
    const value = Number(raw.trim());
    if (value < min || value > max) throw new ConfigError(`${name}=${raw} is not allowed: use a whole number from ${min} to ${max}.`);
    return value;
  };
}

const boolean: Parser<boolean> = (raw, name) => {
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off", ""].includes(v)) return false;
  throw new ConfigError(`${name}=${raw} is not allowed: use 1/true/yes/on or 0/false/no/off.`);
};

const text: Parser<string> = (raw) => raw;

function oneOf<T extends string>(values: readonly T[]): Parser<T> {
  return (raw, name) => {
    if ((values as readonly string[]).includes(raw)) return raw as T;
    throw new ConfigError(`${name}=${raw} is not allowed: use one of ${values.join(", ")}.`);
  };
}

const url: Parser<string> = (raw, name) => {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name}=${raw} is not allowed: use an absolute http(s) URL such as https://render.example.com.`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new ConfigError(`${name}=${raw} is not allowed: use an absolute http(s) URL such as https://render.example.com.`);
  return parsed.origin + parsed.pathname.replace(/\/+$/, "");
};

const cookieName: Parser<string> = (raw, name) => {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(raw)) throw new ConfigError(`${name}=${raw} is not allowed: use 1 to 64 letters, digits, _ or -.`);
  return raw;
};

const secretKey: Parser<string> = (raw, name) => {
  if (raw.length < 32) throw new ConfigError(`${name} is not allowed: use at least 32 characters (it was ${raw.length}).`);
  return raw;
};

const cidrs: Parser<string[]> = (raw, name) => {
  const list = raw.split(",").map((s) => s.trim()).filter(Boolean);
  try {
    parseCidrList(list);
  } catch (e) {
    throw new ConfigError(`${name}=${raw} is not allowed: ${(e as Error).message}; use a comma-separated list of CIDR ranges such as 10.0.0.0/8,::1/128.`);
  }
  return list;
};

const redisUrl: Parser<string> = (raw, name) => {
  let protocol = "";
  try {
    protocol = new URL(raw).protocol;
  } catch {
    // answered below
  }
  // The value may carry a password: only its form is named.
  if (protocol !== "redis:" && protocol !== "rediss:") throw new ConfigError(`${name} is not allowed: use a redis:// or rediss:// URL such as redis://127.0.0.1:6379.`);
  return raw;
};

const databaseUrl: Parser<string> = (raw, name) => {
  let protocol = "";
  try {
    protocol = new URL(raw).protocol;
  } catch {
    // answered below
  }
  // The value carries a password: only its form is named.
  if (protocol !== "postgres:" && protocol !== "postgresql:") throw new ConfigError(`${name} is not allowed: use a postgres:// URL such as postgres://renderd:…@db.internal:5432/renderd.`);
  return raw;
};

const MB = 1_000_000;

/** OPTIONS declares each setting once; `renderd serve --help` and the README table are derived from it. */
export const OPTIONS = {
  dataDir: { env: "DATA_DIR", flag: "--data-dir", help: "folder of the SQLite store, assets and outputs", fallback: () => "./data", parse: text },
  port: { env: "PORT", flag: "--port", help: "public port: /health, /v1/*, console, upload and download addresses (0 = any free port)", fallback: () => "8080", parse: integer(0, 65535) },
  host: { env: "HOST", flag: "--host", help: "address the public port binds to", fallback: () => "0.0.0.0", parse: text },
  internalPort: { env: "INTERNAL_PORT", flag: "--internal-port", help: "internal port on 127.0.0.1: /health/live, /metrics, /internal/state (0 = any free port)", fallback: () => "8081", parse: integer(0, 65535) },
  publicUrl: { env: "PUBLIC_URL", flag: "--public-url", help: "base of upload and download addresses; the console's Origin (default http://localhost:$PORT)", fallback: () => undefined, parse: url },
  secretKey: { env: "SECRET_KEY", flag: "--secret-key", help: "signs sessions and addresses, encrypts webhook secrets and signing certificates (default: generated into DATA_DIR/secret.key)", fallback: () => undefined, parse: secretKey },
  sessionCookieName: { env: "SESSION_COOKIE_NAME", flag: "--session-cookie-name", help: "name of the console's session cookie", fallback: () => "renderd_session", parse: cookieName },
  chromiumPath: { env: "CHROMIUM_PATH", flag: "--chromium-path", help: "Chromium executable", fallback: () => "/usr/bin/chromium", parse: text },
  renderWorkers: { env: "RENDER_WORKERS", flag: "--render-workers", help: "warm Chromium pages rendering at once (default: CPU count)", fallback: () => String(Math.max(1, cpus().length)), parse: integer(1, 256) },
  renderTimeoutMs: { env: "RENDER_TIMEOUT_MS", flag: "--render-timeout-ms", help: "render time limit, 1 s to 1 h", fallback: () => "30000", parse: integer(1000, 3_600_000) },
  // spec 8.2: pages, output and input limits may only be lowered.
  renderMaxPages: { env: "RENDER_MAX_PAGES", flag: "--render-max-pages", help: "pages per document (may only be lowered)", fallback: () => "500", parse: integer(1, 500) },
  renderMaxOutputBytes: { env: "RENDER_MAX_OUTPUT_BYTES", flag: "--render-max-output-bytes", help: "bytes per PDF (may only be lowered)", fallback: () => String(50 * MB), parse: integer(1, 50 * MB) },
  renderMaxInputBytes: { env: "RENDER_MAX_INPUT_BYTES", flag: "--render-max-input-bytes", help: "bytes per request body and render data (may only be lowered)", fallback: () => String(10 * MB), parse: integer(1024, 10 * MB) },
  renderMaxWasmBytes: { env: "RENDER_MAX_WASM_BYTES", flag: "--render-max-wasm-bytes", help: "WebAssembly bytes per render", fallback: () => String(16 * 1024 * 1024), parse: integer(0, 4 * 1024 * 1024 * 1024) },
  renderMaxHeapBytes: { env: "RENDER_MAX_HEAP_BYTES", flag: "--render-max-heap-bytes", help: "JavaScript heap bytes per render page", fallback: () => String(512 * 1024 * 1024), parse: integer(16 * 1024 * 1024, 16 * 1024 * 1024 * 1024) },
  renderRecycleAfter: { env: "RENDER_RECYCLE_AFTER", flag: "--render-recycle-after", help: "renders per page before it is closed and replaced by a fresh one", fallback: () => "1000", parse: integer(1, 1_000_000) },
  renderMaxPageMemoryBytes: { env: "RENDER_MAX_PAGE_MEMORY_BYTES", flag: "--render-max-page-memory-bytes", help: "renderer memory (Pss) per page before the busiest page of a browser is replaced (0 = off)", fallback: () => "0", parse: integer(0, 64 * 1024 * 1024 * 1024) },
  apiRateLimitPerMinute: { env: "API_RATE_LIMIT_PER_MINUTE", flag: "--api-rate-limit-per-minute", help: "/v1/ requests per client address per minute", fallback: () => "1200", parse: integer(1, 10_000_000) },
  trustedProxyRanges: { env: "TRUSTED_PROXY_RANGES", flag: "--trusted-proxy-ranges", help: "CIDR list of proxies whose X-Forwarded-For is believed", fallback: () => "", parse: cidrs },
  webhookAllowHttp: { env: "WEBHOOK_ALLOW_HTTP", flag: "--webhook-allow-http", help: "accept http:// webhook URLs (self-hosted relaxation of spec 6.7)", fallback: () => "0", parse: boolean },
  webhookAllowPrivate: { env: "WEBHOOK_ALLOW_PRIVATE", flag: "--webhook-allow-private", help: "accept webhook URLs on private addresses (self-hosted relaxation of spec 6.7)", fallback: () => "0", parse: boolean },
  destinationAllowPrivate: { env: "DESTINATION_ALLOW_PRIVATE", flag: "--destination-allow-private", help: "accept destinations on private or loopback hosts and plain-http endpoints (self-hosted relaxation of spec 6.7)", fallback: () => "0", parse: boolean },
  signatureTimestampUrl: { env: "SIGNATURE_TIMESTAMP_URL", flag: "--signature-timestamp-url", help: "RFC 3161 timestamp authority for signed PDFs (PAdES B-T; default none: B-B)", fallback: () => undefined, parse: url },
  renderLeaseMs: { env: "RENDER_LEASE_MS", flag: "--render-lease-ms", help: "how long a claimed render stays this process's unless renewed (renewed every third of it while printing), 3 s to 1 h", fallback: () => "30000", parse: integer(3000, 3_600_000) },
  templateConverterUrl: { env: "TEMPLATE_CONVERTER_URL", flag: "--template-converter-url", help: "OpenAI-compatible API base (…/v1) whose chat model names the fields and groups the table rows of templates made from a PDF (default none: offline only)", fallback: () => undefined, parse: url },
  templateConverterModel: { env: "TEMPLATE_CONVERTER_MODEL", flag: "--template-converter-model", help: "model name sent to TEMPLATE_CONVERTER_URL", fallback: () => "default", parse: text },
  shutdownGraceMs: { env: "SHUTDOWN_GRACE_MS", flag: "--shutdown-grace-ms", help: "on SIGTERM, how long printing renders may finish before they are requeued, 0 to 10 min", fallback: () => "20000", parse: integer(0, 600_000) },
  storageMinFreeBytes: { env: "STORAGE_MIN_FREE_BYTES", flag: "--storage-min-free-bytes", help: "free bytes kept in DATA_DIR: below them new renders, uploads and templates answer 503 while reads go on (0 = only when writes fail)", fallback: () => String(256 * 1024 * 1024), parse: integer(0, 2 ** 50) },
  retentionDays: { env: "RETENTION_DAYS", flag: "--retention-days", help: "days renders, their PDFs and delivery records are kept", fallback: () => "30", parse: integer(1, 3650) },
  // Scale-out (docs/scale-out.md). The S3_* names are the runtime's own; secrets are never echoed in an error.
  databaseUrl: { env: "DATABASE_URL", flag: "--database-url", help: "postgres://… store shared by several processes (default: SQLite under DATA_DIR; docs/scale-out.md)", fallback: () => undefined, parse: databaseUrl },
  redisUrl: { env: "REDIS_URL", flag: "--redis-url", help: "redis://… for the API rate-limit counters shared by the processes of a DATABASE_URL store (only with it; default: counted in this process)", fallback: () => undefined, parse: redisUrl },
  s3Bucket: { env: "S3_BUCKET", flag: "--s3-bucket", help: "S3-compatible bucket for assets and PDFs (default: files under DATA_DIR)", fallback: () => undefined, parse: text },
  s3Endpoint: { env: "S3_ENDPOINT", flag: "--s3-endpoint", help: "the bucket's endpoint URL (default: AWS for S3_REGION)", fallback: () => undefined, parse: url },
  s3Region: { env: "S3_REGION", flag: "--s3-region", help: "the bucket's region", fallback: () => undefined, parse: text },
  s3AccessKeyId: { env: "S3_ACCESS_KEY_ID", flag: "--s3-access-key-id", help: "access key id for the bucket", fallback: () => undefined, parse: text },
  s3SecretAccessKey: { env: "S3_SECRET_ACCESS_KEY", flag: "--s3-secret-access-key", help: "secret access key for the bucket", fallback: () => undefined, parse: text },
  logLevel: { env: "LOG_LEVEL", flag: "--log-level", help: "fatal, error, warn, info, debug, trace or silent", fallback: () => "info", parse: oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const) },
  adminEmail: { env: "RENDERD_ADMIN_EMAIL", flag: "--admin-email", help: "first start only: e-mail of the platform administrator", fallback: () => "admin@renderd.local", parse: text },
  adminPassword: { env: "RENDERD_ADMIN_PASSWORD", flag: "--admin-password", help: `first start only: that administrator's password, ${PASSWORD_RULE} (default: generated and printed once serve listens)`, fallback: () => undefined, parse: text },
} satisfies Record<string, Option<unknown>>;

type Options = typeof OPTIONS;
type Parsed<K extends keyof Options> = ReturnType<Options[K]["parse"]>;

/** Config is the parsed, validated configuration; `publicUrl` and `secretKey` are always set after loadConfig. */
export type Config = { [K in keyof Options]: Parsed<K> } & { publicUrl: string; secretKey: string };

/** Accepts names a setting one command takes in another sense: for `migrate --to-postgres` DATABASE_URL is the target of
 * a copy from DATA_DIR's store, not the store, so the rules of a shared store do not apply. */
export interface Accepts {
  databaseUrl?: boolean;
}

/** loadConfig reads each option from `values` (flags) first, then `env`, then its default, and validates it. */
export function loadConfig(env: Record<string, string | undefined>, values: Partial<Record<keyof Options, string>> = {}, accepts: Accepts = {}): Config {
  const out: Record<string, unknown> = {};
  for (const [key, option] of Object.entries(OPTIONS) as [keyof Options, Option<unknown>][]) {
    const raw = values[key] ?? env[option.env] ?? option.fallback();
    out[key] = raw === undefined ? undefined : option.parse(raw, option.env);
  }
  const config = out as Config;
  config.dataDir = resolve(config.dataDir);
  config.publicUrl ??= `http://localhost:${config.port}`;
  if (config.adminEmail !== undefined && !/^[^\s@]+@[^\s@]+$/.test(config.adminEmail))
    throw new ConfigError(`RENDERD_ADMIN_EMAIL=${config.adminEmail} is not allowed: use an e-mail address.`);
  // The value itself is never echoed: it is a password.
  if (config.adminPassword !== undefined && passwordProblem(config.adminPassword) !== null)
    throw new ConfigError(`RENDERD_ADMIN_PASSWORD is not allowed: use ${PASSWORD_RULE}.`);
  checkBackends(config, accepts, env.SECRET_KEY !== undefined || values.secretKey !== undefined);
  return config;
}

/** checkBackends refuses a combination of scale-out settings that cannot work (docs/scale-out.md "Settings"). */
function checkBackends(config: Config, accepts: Accepts, secretKeyGiven: boolean): void {
  if (config.databaseUrl !== undefined && !accepts.databaseUrl) {
    // Processes sharing a store share everything else too: counts in one process's memory, files on one host's disk or
    // a key generated into one DATA_DIR would each hold for that process alone.
    const missing = [config.redisUrl === undefined && "REDIS_URL", config.s3Bucket === undefined && "S3_BUCKET", !secretKeyGiven && "SECRET_KEY"].filter(Boolean);
    if (missing.length)
      throw new ConfigError(
        `DATABASE_URL (a store shared by several processes) needs ${missing.join(", ")}: rate limits are shared through Redis, files through a bucket, and every process must sign and seal with the same SECRET_KEY (docs/scale-out.md).`,
      );
  }
  if (config.redisUrl !== undefined && config.databaseUrl === undefined)
    throw new ConfigError("REDIS_URL is set but DATABASE_URL is not: Redis shares rate limits between processes that share a PostgreSQL store; set DATABASE_URL too, or unset REDIS_URL to count in this process (docs/scale-out.md).");
  const s3 = [config.s3Endpoint && "S3_ENDPOINT", config.s3Region && "S3_REGION", config.s3AccessKeyId && "S3_ACCESS_KEY_ID", config.s3SecretAccessKey && "S3_SECRET_ACCESS_KEY"].filter(Boolean);
  if (config.s3Bucket === undefined) {
    if (s3.length) throw new ConfigError(`${s3.join(", ")} ${s3.length > 1 ? "are" : "is"} set but S3_BUCKET is not: set S3_BUCKET to keep files in a bucket, or unset ${s3.join(", ")} to keep them under DATA_DIR.`);
    return;
  }
  const missing = [!config.s3AccessKeyId && "S3_ACCESS_KEY_ID", !config.s3SecretAccessKey && "S3_SECRET_ACCESS_KEY", !config.s3Endpoint && !config.s3Region && "S3_REGION (or S3_ENDPOINT)"].filter(Boolean);
  if (missing.length) throw new ConfigError(`S3_BUCKET=${config.s3Bucket} needs ${missing.join(", ")}: set ${missing.length > 1 ? "them" : "it"}, or unset S3_BUCKET to keep files under DATA_DIR.`);
}

/** ensureDataDir creates DATA_DIR and, when SECRET_KEY is unset, reads or generates DATA_DIR/secret.key (mode 0600). */
export function ensureDataDir(config: Config): void {
  try {
    mkdirSync(config.dataDir, { recursive: true });
  } catch (e) {
    throw new ConfigError(`DATA_DIR=${config.dataDir} is not allowed: ${(e as Error).message}.`);
  }
  if (config.secretKey) return;
  const file = join(config.dataDir, "secret.key");
  if (!existsSync(file)) {
    const generated = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url") + "\n";
    writeFileSync(file, generated, { mode: 0o600, flag: "wx" });
  }
  config.secretKey = readFileSync(file, "utf8").trim();
  if (config.secretKey.length < 32) throw new ConfigError(`SECRET_KEY is not allowed: ${file} holds fewer than 32 characters.`);
}
