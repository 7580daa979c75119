/** backup/restore: an archive becomes a new DATA_DIR, whole or not at all. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fsyncDir } from "../store/files-staging";
import { MIGRATIONS } from "../store/migrations";
import { joinEntry, readArchive, type OnBytes } from "./archive";
import { checkAgainstManifest, checkStore, summarize, type Verified } from "./check";
import { STORE_ENTRY } from "./manifest";

/**
 * restoreBackup extracts an archive into a temporary folder beside `target`, verifies it there (manifest, every sha256,
 * integrity_check, a migration level this binary knows) and only then renames it to `target`: a failure leaves nothing.
 * `target` must not exist or be an empty folder; it never needs an existing store.
 */
export async function restoreBackup(archive: string, target: string, onBytes?: OnBytes): Promise<Verified & { target: string }> {
  const into = resolve(target);
  if (existsSync(into)) {
    if (!statSync(into).isDirectory()) throw new Error(`${into} is a file: restore into an empty or new folder.`);
    if (readdirSync(into).length > 0) throw new Error(`${into} is not empty: restore into an empty or new folder (nothing was written).`);
  }
  mkdirSync(dirname(into), { recursive: true });
  const temp = mkdtempSync(join(dirname(into), `.${basename(into)}.restore-`));
  try {
    const result = await readArchive(archive, (name) => joinEntry(temp, name), onBytes);
    const manifest = checkAgainstManifest(result);
    checkStore(join(temp, STORE_ENTRY), manifest);
    const newest = MIGRATIONS.at(-1)?.version ?? 0;
    if (manifest.migration.version > newest)
      throw new Error(`the backup is at migration ${manifest.migration.name}, newer than this renderd knows (${newest}): restore it with a newer renderd.`);
    // rename(2) replaces an empty folder: the target appears complete or not at all.
    renameSync(temp, into);
    fsyncDir(dirname(into));
    return { ...summarize(manifest), target: into };
  } catch (e) {
    rmSync(temp, { recursive: true, force: true });
    throw e;
  }
}
