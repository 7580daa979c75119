/** doctor/checks: what `renderd serve` needs from its host, each checked on its own and answered as one line. No folder,
 * key or store is created: one that does not exist yet is what serve makes on its first start. */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../config";
import { randomBase62 } from "../lib/ids";
import { checkIntegrity, migrationLevel, withReadOnly } from "../backup/snapshot";
import { BrowserProcess, launchOptions } from "../render/browser";
import { processTempDir } from "../render/tempdir";
import { poolOptions } from "../render/pool";
import { freeBytesOf } from "../store/space";
import { listenError, listenerHoldsStore, renderdAnswers } from "./ports";
import { allMigrationsPending, fail, migrationsCheck, ok, warn, type CheckResult } from "./result";
import { checkBucket, checkPostgres, checkRedis } from "./shared";

const MB = 1_000_000;
const DISK_WARN_BYTES = 1000 * MB;

/** checkChromium starts Chromium exactly as the pool does and answers its version. */
export async function checkChromium(config: Config): Promise<CheckResult> {
  try {
    const browser = await BrowserProcess.launch(launchOptions(poolOptions(config), processTempDir()), new Date());
    try {
      return ok("chromium", `Chromium ${browser.browser.version()} starts (${config.chromiumPath})`);
    } finally {
      await browser.close(5000);
    }
  } catch (e) {
    return fail("chromium", (e as Error).message);
  }
}

// Families fontconfig answers for a pattern; null when fc-list is not installed.
function families(pattern: string): string[] | null {
  try {
    const r = Bun.spawnSync(["fc-list", pattern, "family"], { stdout: "pipe", stderr: "ignore" });
    return r.exitCode === 0 ? r.stdout.toString().split("\n").filter(Boolean) : null;
  } catch {
    return null;
  }
}

/** checkFonts fails without any font and warns without a CJK (U+4E2D) or an emoji (U+1F600) fallback: those characters would print as boxes. */
export function checkFonts(): CheckResult {
  const all = families(":");
  if (all === null) return warn("fonts", "fc-list was not found: install fontconfig to list the fonts Chromium can use.");
  if (all.length === 0) return fail("fonts", "no fonts are installed: install fonts-dejavu-core and fonts-liberation.");
  const lacking = [
    families(":charset=4e2d")?.length ? null : "no CJK fallback (install fonts-noto-cjk)",
    families(":charset=1f600")?.length ? null : "no emoji fallback (install fonts-noto-color-emoji)",
  ].filter((s): s is string => s !== null);
  const count = `${new Set(all).size} font families`;
  return lacking.length ? warn("fonts", `${count}; ${lacking.join("; ")}: those characters print as boxes.`) : ok("fonts", `${count}, with CJK and emoji fallbacks`);
}

async function checkPort(check: string, variable: string, hostname: string, port: number, config: Config): Promise<CheckResult> {
  if (port === 0) return ok(check, `${variable}=0: serve takes any free port`);
  const error = listenError(hostname, port);
  if (error === null) return ok(check, `${port} on ${hostname} is free`);
  if (error === "EADDRINUSE" && (await renderdAnswers(config.internalPort))) {
    const live = `its /health/live answers on ${config.internalPort}`;
    const holds = listenerHoldsStore(config.internalPort, config.dataDir);
    if (holds === true) return ok(check, `${port} is held by the renderd serving this DATA_DIR (${live})`);
    if (holds === null) return ok(check, `${port} is held by a renderd (${live}; its DATA_DIR cannot be seen in /proc: another user's process)`);
    return fail(check, `${port} is held by a renderd serving another DATA_DIR (${live}): stop it, or set ${variable} to a free port.`);
  }
  if (error === "EADDRINUSE") return fail(check, `${port} on ${hostname} is taken by another process: stop it, or set ${variable} to a free port.`);
  return fail(check, `${port} on ${hostname} cannot be listened on (${error}): ports below 1024 need root or CAP_NET_BIND_SERVICE; set ${variable}.`);
}

/** checkPorts checks PORT on HOST and INTERNAL_PORT on 127.0.0.1. */
export async function checkPorts(config: Config): Promise<CheckResult[]> {
  return [await checkPort("port", "PORT", config.host, config.port, config), await checkPort("internal-port", "INTERNAL_PORT", "127.0.0.1", config.internalPort, config)];
}

// The nearest folder that exists: where a DATA_DIR that is not there yet would be created.
function nearestExisting(path: string): string {
  let dir = path;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** checkDataDir writes and removes a probe file in DATA_DIR (or the folder serve would create it in) and weighs the free disk. */
export function checkDataDir(config: Config): CheckResult {
  const dir = nearestExisting(config.dataDir);
  const probe = join(dir, `.renderd-doctor-${randomBase62(8)}`);
  try {
    writeFileSync(probe, "", { flag: "wx", mode: 0o600 });
    rmSync(probe);
  } catch (e) {
    return fail("data-dir", `${dir} is not writable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): serve must write DATA_DIR=${config.dataDir}.`);
  }
  const free = freeBytesOf(dir);
  const where = dir === config.dataDir ? `${dir} is writable` : `${config.dataDir} does not exist yet; serve creates it in ${dir}, which is writable`;
  const freeText = `${(free / (1000 * MB)).toFixed(1)} GB free`;
  // serve runs below the threshold, refusing what would fill the disk (store/space.ts): a warning, not a failure.
  if (free < config.storageMinFreeBytes)
    return warn(
      "data-dir",
      `${where}, but only ${freeText} (${free} bytes), under STORAGE_MIN_FREE_BYTES (${config.storageMinFreeBytes}): serve refuses new renders, uploads and templates (503) until more is free; reads go on.`,
    );
  if (free < DISK_WARN_BYTES) return warn("data-dir", `${where}; only ${freeText}.`);
  return ok("data-dir", `${where}; ${freeText}`);
}

/** checkSecretKey checks that DATA_DIR/secret.key, when it is the key in use, is readable by its owner alone (0600). */
export function checkSecretKey(config: Config): CheckResult {
  if (config.secretKey) return ok("secret-key", "SECRET_KEY is set; DATA_DIR/secret.key is not used");
  const file = join(config.dataDir, "secret.key");
  if (!existsSync(file)) return ok("secret-key", "no secret.key yet: serve generates it with mode 0600");
  const mode = statSync(file).mode & 0o777;
  const octal = mode.toString(8).padStart(4, "0");
  if (mode & 0o077) return fail("secret-key", `${file} is mode ${octal}: other users can read it; run chmod 600 ${file}.`);
  if (readFileSync(file, "utf8").trim().length < 32) return fail("secret-key", `${file} holds fewer than 32 characters: serve refuses it.`);
  return ok("secret-key", `${file} is mode ${octal}`);
}

/** checkStore runs quick_check on DATA_DIR's store and compares its migration level with the binary's. */
export function checkStore(config: Config): CheckResult[] {
  const file = join(config.dataDir, "renderd.db");
  if (!existsSync(file)) return [ok("store", "no store yet: serve creates it"), allMigrationsPending()];
  try {
    return withReadOnly(file, (db) => {
      const problems = checkIntegrity(db, "quick_check");
      const store = problems.length ? fail("store", `quick_check: ${problems.slice(0, 3).join("; ")}: restore a backup (docs/operations.md).`) : ok("store", "quick_check ok");
      return [store, migrationsCheck(migrationLevel(db))];
    });
  } catch (e) {
    return [fail("store", (e as Error).message), fail("migrations", "unknown: the store does not open")];
  }
}

// With DATABASE_URL the store is PostgreSQL (DATA_DIR's renderd.db is not it) and Redis counts the rate limits; the
// bucket holds the files whenever S3_BUCKET is set, with or without DATABASE_URL (store/open-files.ts).
async function checkStoreEngines(config: Config): Promise<CheckResult[]> {
  const store = config.databaseUrl === undefined ? checkStore(config) : [...(await checkPostgres(config.databaseUrl)), await checkRedis(config.redisUrl!)];
  return config.s3Bucket === undefined ? store : [...store, await checkBucket(config)];
}

/** runChecks runs every check, in the order the report prints them. */
export async function runChecks(config: Config): Promise<CheckResult[]> {
  return [await checkChromium(config), checkFonts(), ...(await checkPorts(config)), checkDataDir(config), checkSecretKey(config), ...(await checkStoreEngines(config))];
}
