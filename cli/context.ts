/** cli/context: what every store-acting subcommand shares — config from the environment, the migrated store, output. */
import type { Command } from "commander";
import { existsSync } from "node:fs";
import { ConfigError, ensureDataDir, loadConfig, type Accepts, type Config } from "../src/config";
import { ApiError } from "../src/errors";
import { systemClock, type Clock } from "../src/lib/clock";
import { newId } from "../src/lib/ids";
import { CLI_ACTOR, type ChangeContext } from "../src/auth/actor";
import { openMigratedStore, storePath } from "../src/store/open";
import type { Store } from "../src/store/store";

export interface CliContext {
  config: Config;
  store: Store;
  clock: Clock;
  /** The migrations this run applied before `fn` (usually none). */
  migrated: string[];
}

/** StoreUse is what a command declares about the store it acts on. */
export interface StoreUse {
  /**
   * createStore: the command may start a new, empty store (serve, migrate, backup restore). Every other command refuses
   * one that is not there, so a wrong or missing DATA_DIR is named instead of answered from an empty store.
   */
  createStore?: boolean;
  /** accepts: the settings this command takes that the others refuse (DATABASE_URL for `migrate --to-postgres`). */
  accepts?: Accepts;
}

// Names where DATA_DIR came from, so the operator sees which setting to change.
function dataDirSource(flag: string | undefined): string {
  if (flag) return `--data-dir ${flag}`;
  return process.env.DATA_DIR ? `DATA_DIR=${process.env.DATA_DIR}` : "DATA_DIR unset, default ./data";
}

/** withStore opens DATA_DIR's store (migrated), runs `fn`, and always closes it; only a `createStore` command may start a new store. */
export async function withStore<T>(fn: (ctx: CliContext) => T | Promise<T>, dataDir?: string, use: StoreUse = {}): Promise<T> {
  const config = loadConfig(process.env, dataDir ? { dataDir } : {}, use.accepts);
  // DATABASE_URL names the store, unless this command takes it as its target (`migrate --to-postgres`).
  const databaseUrl = use.accepts?.databaseUrl ? undefined : config.databaseUrl;
  const path = storePath(config.dataDir);
  if (!use.createStore && databaseUrl === undefined && !existsSync(path))
    throw new ConfigError(
      `no renderd store at ${path} (${dataDirSource(dataDir)}): set DATA_DIR or --data-dir to the folder that holds renderd.db; \`renderd serve\` or \`renderd migrate\` starts a new one.`,
    );
  ensureDataDir(config);
  const { store, applied: migrated } = await openMigratedStore({ dataDir: config.dataDir, databaseUrl }, systemClock);
  try {
    return await fn({ config, store, clock: systemClock, migrated });
  } finally {
    await store.close();
  }
}

/** fail prints one clear line to stderr and exits non-zero: 2 for bad input or configuration, 1 otherwise. */
export function fail(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`renderd: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof ApiError) {
    const detail = error.details?.map((d) => (d.path ? `${d.path.replace(/^\//, "")}: ${d.message}` : d.message)).join("; ");
    process.stderr.write(`renderd: ${error.message}${detail ? ` (${detail})` : ""}\n`);
    process.exit(error.status >= 500 ? 1 : 2);
  }
  process.stderr.write(`renderd: ${(error as Error)?.message ?? String(error)}\n`);
  process.exit(1);
}

/** guard wraps a command action so any error ends the command through `fail`: one line, non-zero exit. */
export function guard<A extends unknown[]>(action: (...args: A) => unknown): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (e) {
      fail(e);
    }
  };
}

/** print writes a value as JSON (`--json`) or as the human text. */
export function print(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? JSON.stringify(value, null, 2) + "\n" : human() + "\n");
}

/** cliChange is the ChangeContext of one CLI run: actor `system`/`cli` (DESIGN.md 3) and a fresh request id for the audit rows. */
export function cliChange(): ChangeContext {
  return { actor: CLI_ACTOR, requestId: newId("req") };
}

/** storeOptions adds the options every store-acting subcommand shares: `--json` and `--data-dir`. */
export function storeOptions(cmd: Command, json = true): Command {
  if (json) cmd.option("--json", "print JSON for scripts");
  return cmd.option("--data-dir <dir>", "data folder holding renderd.db [env DATA_DIR, default ./data]");
}

/** table lays rows out in space-padded columns under a header line. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ");
  return [line(headers), ...rows.map(line)].join("\n");
}
