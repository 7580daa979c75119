/** backup/create: an online backup of a DATA_DIR — store snapshot, the files it references, the secret key, a manifest. */
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { randomBase62 } from "../lib/ids";
import { fsyncDir } from "../store/files-staging";
import { ArchiveWriter, joinEntry } from "./archive";
import { verifyArchive, type Verified } from "./check";
import { FORMAT_VERSION, MANIFEST_ENTRY, RENDERD_VERSION, SECRET_ENTRY, STORE_ENTRY, type Manifest, type ManifestFile, type Missing } from "./manifest";
import { checkIntegrity, migrationLevel, referencedFiles, takeSnapshot, unspool, withReadOnly } from "./snapshot";

/** Phase names the two passes a backup makes, for a progress bar. */
export type Phase = "backup" | "verify";

/** CreateOptions say which DATA_DIR to back up, with which key, into which file. */
export interface CreateOptions {
  dataDir: string;
  /** SECRET_KEY when it is configured (environment or flag) rather than kept in DATA_DIR/secret.key. */
  secretKey?: string;
  out: string;
  now: Date;
  onBytes?: (phase: Phase, done: number, total: number) => void;
  /** The assets and PDFs are in an S3 bucket (S3_BUCKET), not under DATA_DIR: the archive holds the store and key only. */
  filesInBucket?: boolean;
}

function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException)?.code === "ENOENT";
}

// The key the appliance runs with, as a secret.key file: the configured one, else the generated file's bytes as they
// are; none before the first start.
function secretOf(options: CreateOptions): Uint8Array | null {
  if (options.secretKey) return new TextEncoder().encode(options.secretKey + "\n");
  const file = join(options.dataDir, SECRET_ENTRY);
  return existsSync(file) ? readFileSync(file) : null;
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch (e) {
    if (isMissing(e)) return 0;
    throw e;
  }
}

/**
 * createBackup writes `out` while serve may run: VACUUM INTO takes the store as of one instant, and that snapshot alone
 * decides which assets and PDFs belong in the archive. A referenced file removed before it is opened (retention deleting
 * an old render's PDF a moment after the snapshot) is left out and listed under `missing`; once opened it is archived
 * whole even if it is unlinked meanwhile. The archive is written beside `out`, read back and verified, then renamed.
 */
export async function createBackup(options: CreateOptions): Promise<Verified & { out: string; missing: Missing[] }> {
  const dbPath = join(options.dataDir, STORE_ENTRY);
  const out = resolve(options.out);
  if (!existsSync(dbPath)) throw new Error(`there is no store at ${dbPath}: nothing to back up (check DATA_DIR or --data-dir).`);
  if (existsSync(out)) throw new Error(`${out} already exists: name a new file with --out, or remove it first.`);
  // The snapshot is staged inside DATA_DIR: the same disk as the store, rather than a /tmp that may be small.
  mkdirSync(join(options.dataDir, "tmp"), { recursive: true });
  const stage = mkdtempSync(join(options.dataDir, "tmp", "backup-"));
  const partial = `${out}.${randomBase62(8)}.part`;
  let writer: ArchiveWriter | undefined;
  try {
    const snapshot = join(stage, STORE_ENTRY);
    takeSnapshot(dbPath, snapshot);
    // With the files in a bucket the archive holds none: spooled PDFs stay in its store, written to the bucket at the
    // restored appliance's start. Without, they are archived as the files they become.
    const spooled = new Map(options.filesInBucket ? [] : unspool(snapshot).map((s) => [s.path, s.bytes]));
    const { migration, referenced } = withReadOnly(snapshot, (db) => {
      const problems = checkIntegrity(db);
      if (problems.length) throw new Error(`the store fails integrity_check (${problems[0]}): no backup was written; run renderd doctor.`);
      return { migration: migrationLevel(db), referenced: options.filesInBucket ? [] : referencedFiles(db) };
    });
    const secretBytes = secretOf(options);
    const total =
      sizeOf(snapshot) + (secretBytes?.byteLength ?? 0) + referenced.reduce((sum, path) => sum + (spooled.get(path)?.byteLength ?? sizeOf(joinEntry(options.dataDir, path))), 0);
    let done = 0;
    const tick = (bytes: number) => options.onBytes?.("backup", (done += bytes), total);

    writer = new ArchiveWriter(partial);
    const files: ManifestFile[] = [await writer.addFile(STORE_ENTRY, openSync(snapshot, "r"), tick)];
    if (secretBytes) {
      files.push(await writer.addBytes(SECRET_ENTRY, secretBytes));
      tick(secretBytes.byteLength);
    }
    const missing: Missing[] = [];
    for (const path of referenced) {
      const bytes = spooled.get(path);
      if (bytes) {
        files.push(await writer.addBytes(path, bytes));
        tick(bytes.byteLength);
        continue;
      }
      let fd: number;
      try {
        fd = openSync(joinEntry(options.dataDir, path), "r");
      } catch (e) {
        if (!isMissing(e)) throw e;
        missing.push({ path, reason: "removed after the snapshot was taken (retention or a deleted asset)" });
        continue;
      }
      files.push(await writer.addFile(path, fd, tick));
    }
    const manifest: Manifest = {
      format: "renderd-backup",
      formatVersion: FORMAT_VERSION,
      renderdVersion: RENDERD_VERSION,
      createdAt: options.now.toISOString(),
      migration,
      files,
      missing,
    };
    await writer.addBytes(MANIFEST_ENTRY, new TextEncoder().encode(JSON.stringify(manifest, null, 2) + "\n"));
    await writer.finish();
    writer = undefined;

    const verified = await verifyArchive(partial, (d, t) => options.onBytes?.("verify", d, t), stage);
    renameSync(partial, out);
    fsyncDir(dirname(out));
    return { ...verified, out, missing };
  } catch (e) {
    writer?.abandon();
    rmSync(partial, { force: true });
    throw e;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
