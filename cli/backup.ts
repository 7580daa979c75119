/** cli/backup: `renderd backup create|verify|restore` — online backups of DATA_DIR and their restoration (docs/operations.md). */
import { Command } from "commander";
import { createBackup } from "../src/backup/create";
import { verifyArchive, type Verified } from "../src/backup/check";
import { restoreBackup } from "../src/backup/restore";
import { loadConfig } from "../src/config";
import { systemClock } from "../src/lib/clock";
import { guard, print, storeOptions } from "./context";
import { formatBytes, progressBar } from "./progress";

interface Flags {
  json?: boolean;
  dataDir?: string;
}

function described(v: Verified): string {
  return `${v.files} files, ${formatBytes(v.bytes)}, store at migration ${v.manifest.migration.name || v.manifest.migration.version}`;
}

// The bar is cleared before anything else is printed, whether the work succeeded or not.
async function withBar<T>(work: (bar: ReturnType<typeof progressBar>) => Promise<T>): Promise<T> {
  const bar = progressBar();
  try {
    return await work(bar);
  } finally {
    bar.end();
  }
}

function createCommand(): Command {
  return storeOptions(
    new Command("create")
      .description("write a verified backup archive (.tar.gz) of DATA_DIR while serve may run: store snapshot, assets, PDFs, secret key")
      .requiredOption("--out <file>", "the archive to write (must not exist); written with mode 0600"),
  ).action(
    guard(async (flags: Flags & { out: string }) => {
      const config = loadConfig(process.env, flags.dataDir ? { dataDir: flags.dataDir } : {});
      process.stderr.write("renderd: warning: the archive holds the secret key and every stored document: keep it as private as DATA_DIR (it is written with mode 0600).\n");
      const filesInBucket = config.s3Bucket !== undefined;
      if (filesInBucket)
        process.stderr.write(`renderd: warning: S3_BUCKET=${config.s3Bucket} holds the assets and PDFs; the archive holds the store and key only: back the bucket up with its provider's tools.\n`);
      const made = await withBar((bar) =>
        createBackup({ dataDir: config.dataDir, secretKey: config.secretKey, out: flags.out, now: systemClock.now(), filesInBucket, onBytes: (phase, d, t) => bar.update(phase, d, t) }),
      );
      for (const m of made.missing) process.stderr.write(`renderd: warning: ${m.path} left out: ${m.reason}.\n`);
      print(!!flags.json, { out: made.out, files: made.files, bytes: made.bytes, missing: made.missing, manifest: { ...made.manifest, files: undefined } }, () =>
        `backup written to ${made.out} (${described(made)}); verified: integrity_check ok, every sha256 matches`,
      );
    }),
  );
}

function verifyCommand(): Command {
  return new Command("verify")
    .description("check an archive again: its manifest, the sha256 of every file, the store snapshot's integrity_check")
    .argument("<file>", "a backup archive")
    .option("--json", "print JSON for scripts")
    .action(
      guard(async (file: string, flags: Flags) => {
        const verified = await withBar((bar) => verifyArchive(file, (d, t) => bar.update("verify", d, t)));
        print(!!flags.json, { file, files: verified.files, bytes: verified.bytes, createdAt: verified.manifest.createdAt, migration: verified.manifest.migration }, () =>
          `${file} is sound (${described(verified)}, made ${verified.manifest.createdAt} by renderd ${verified.manifest.renderdVersion})`,
        );
      }),
    );
}

function restoreCommand(): Command {
  return new Command("restore")
    .description("restore an archive into a new or empty folder (a non-empty one is refused); it is verified before it appears")
    .argument("<file>", "a backup archive")
    .requiredOption("--data-dir <dir>", "the folder to create as the restored DATA_DIR (new or empty)")
    .option("--json", "print JSON for scripts")
    .action(
      guard(async (file: string, flags: Flags & { dataDir: string }) => {
        const restored = await withBar((bar) => restoreBackup(file, flags.dataDir, (d, t) => bar.update("restore", d, t)));
        print(!!flags.json, { dataDir: restored.target, files: restored.files, bytes: restored.bytes, migration: restored.manifest.migration }, () =>
          `restored ${file} into ${restored.target} (${described(restored)}); start it with: renderd serve --data-dir ${restored.target}`,
        );
      }),
    );
}

/** backupCommand builds `renderd backup` and its subcommands `create`, `verify` and `restore`. */
export function backupCommand(): Command {
  return new Command("backup")
    .description("online backups of DATA_DIR: create, verify, restore (docs/operations.md)")
    .addCommand(createCommand())
    .addCommand(verifyCommand())
    .addCommand(restoreCommand());
}
