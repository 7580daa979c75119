/** cli/migrate: `renderd migrate` — apply pending migrations to DATA_DIR's store and say which; with `--to-postgres`,
 * copy the store and its files into DATABASE_URL and S3_BUCKET (docs/scale-out.md "Moving an appliance"). */
import { Command } from "commander";
import { join } from "node:path";
import { migrateToPostgres } from "../src/backup/to-postgres";
import { ConfigError } from "../src/config";
import { DiskFiles } from "../src/store/files-disk";
import { openFiles } from "../src/store/open-files";
import { storePath } from "../src/store/open";
import { guard, print, withStore, type CliContext } from "./context";
import { formatBytes } from "./progress";

interface Flags {
  dataDir?: string;
  json?: boolean;
  toPostgres?: boolean;
  force?: boolean;
}

const say = (line: string) => process.stderr.write(`renderd: ${line}\n`);

async function toPostgres({ config, store, clock }: CliContext, flags: Flags): Promise<void> {
  if (config.databaseUrl === undefined) throw new ConfigError("--to-postgres needs DATABASE_URL: set it to the postgres:// URL of the new store.");
  if (config.s3Bucket === undefined) throw new ConfigError("--to-postgres needs S3_BUCKET (and its S3_* settings): processes sharing a store share their files through a bucket.");
  const moved = await migrateToPostgres({
    dataDir: config.dataDir,
    storePath: storePath(config.dataDir),
    databaseUrl: config.databaseUrl,
    from: new DiskFiles(config.dataDir),
    to: openFiles(config),
    replace: !!flags.force,
    clock,
    progress: {
      migrated: (database, applied) => say(`${database}: ${applied.length ? `applied ${applied.length} migrations` : "schema up to date"}`),
      // Every 100 files and the last: a line each, readable in a log as on a terminal.
      files: (done, total, bytes) => {
        if (done % 100 === 0 || done === total) say(`files: ${done}/${total}, ${formatBytes(bytes)} sent`);
      },
      missing: (path) => say(`warning: ${path} is referenced by the store but not under DATA_DIR: left out`),
      table: (name, rows) => say(`rows: ${name} ${rows}`),
    },
  });
  // Webhook secrets and certificates are sealed, cookies and asset addresses signed with the key in use: every process must share it.
  const keyFrom = process.env.SECRET_KEY ? "SECRET_KEY" : join(config.dataDir, "secret.key");
  say(`note: start every process on the new store with SECRET_KEY set to this appliance's key (${keyFrom}): webhook secrets and certificates are sealed with it.`);
  const rows = Object.values(moved.rows).reduce((a, b) => a + b, 0);
  const { files } = moved;
  print(!!flags.json, moved, () =>
    `copied ${rows} rows in ${Object.keys(moved.rows).length} tables to ${moved.database} and ${files.copied} files (${formatBytes(files.bytes)}) to S3_BUCKET=${config.s3Bucket}` +
      ` (${files.present} already there${files.missing.length ? `, ${files.missing.length} missing from DATA_DIR` : ""})`,
  );
}

/** migrateCommand builds `renderd migrate`. */
export function migrateCommand(): Command {
  return new Command("migrate")
    .description("apply pending SQL migrations to DATA_DIR/renderd.db; --to-postgres then copies it and its files to DATABASE_URL and S3_BUCKET")
    .option("--data-dir <dir>", "data folder [env DATA_DIR]")
    .option("--to-postgres", "copy the store into DATABASE_URL (one transaction) and its files into S3_BUCKET; serve must be stopped")
    .option("--force", "with --to-postgres: replace the rows DATABASE_URL already holds")
    .option("--json", "print JSON")
    .action(
      guard((opts: Flags) => {
        if (opts.force && !opts.toPostgres) throw new ConfigError("--force goes with --to-postgres only.");
        return withStore(
          (ctx) => {
            if (opts.toPostgres) return toPostgres(ctx, opts);
            print(!!opts.json, { applied: ctx.migrated }, () => (ctx.migrated.length ? `applied ${ctx.migrated.join(", ")}` : "the store is up to date"));
          },
          opts.dataDir,
          { createStore: !opts.toPostgres, accepts: { databaseUrl: !!opts.toPostgres } },
        );
      }),
    );
}
