/** backup/check: an archive read back is held against its manifest, and its store snapshot is opened and checked. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readArchive, type OnBytes, type ReadResult } from "./archive";
import { addressedSha256, parseManifest, STORE_ENTRY, type Manifest } from "./manifest";
import { checkIntegrity, migrationLevel, withReadOnly } from "./snapshot";

/** Verified is what a verification found sound. */
export interface Verified {
  manifest: Manifest;
  files: number;
  bytes: number;
}

function oneLine(what: string, problems: string[]): string {
  const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : "";
  return `${what}: ${problems.slice(0, 3).join("; ")}${more}.`;
}

/** checkAgainstManifest answers the manifest when every listed file is in the archive with its size and sha256 (and a
 * stored file's bytes hash to its name), nothing unlisted is there, and the store is listed; else throws one line. */
export function checkAgainstManifest(result: ReadResult): Manifest {
  if (result.manifestText === null) throw new Error("the archive has no manifest.json: it is not a renderd backup, or it was cut short.");
  const manifest = parseManifest(result.manifestText);
  const problems: string[] = [];
  const listed = new Set<string>();
  for (const f of manifest.files) {
    listed.add(f.path);
    const got = result.seen.get(f.path);
    if (!got) problems.push(`${f.path} is in the manifest but not in the archive`);
    else if (got.size !== f.size) problems.push(`${f.path} has ${got.size} bytes where the manifest says ${f.size}`);
    else if (got.sha256 !== f.sha256) problems.push(`${f.path} does not match its sha256 in the manifest (changed or damaged)`);
    else if ((addressedSha256(f.path) ?? got.sha256) !== got.sha256) problems.push(`${f.path} does not hash to its own name`);
  }
  for (const path of result.seen.keys()) if (!listed.has(path)) problems.push(`${path} is in the archive but not in the manifest`);
  if (!listed.has(STORE_ENTRY)) problems.push(`the manifest lists no ${STORE_ENTRY}`);
  if (problems.length) throw new Error(oneLine("the archive fails verification", problems));
  return manifest;
}

/** checkStore opens a snapshot: it must pass integrity_check and sit at the migration the manifest records. */
export function checkStore(dbPath: string, manifest: Manifest): void {
  withReadOnly(dbPath, (db) => {
    const problems = checkIntegrity(db);
    if (problems.length) throw new Error(oneLine("the store snapshot fails integrity_check", problems));
    const level = migrationLevel(db);
    if (level.version !== manifest.migration.version)
      throw new Error(`the store snapshot is at migration ${level.version} where the manifest says ${manifest.migration.version}: the archive was changed.`);
  });
}

/** summarize counts a verified manifest's files and bytes. */
export function summarize(manifest: Manifest): Verified {
  return { manifest, files: manifest.files.length, bytes: manifest.files.reduce((sum, f) => sum + f.size, 0) };
}

/** verifyArchive reads an archive through once (the store snapshot goes to a temporary folder inside `scratch`, to be
 * opened) and answers its summary, or throws one line saying what failed. */
export async function verifyArchive(path: string, onBytes?: OnBytes, scratch: string = tmpdir()): Promise<Verified> {
  const dir = mkdtempSync(join(scratch, "renderd-verify-"));
  try {
    const result = await readArchive(path, (name) => (name === STORE_ENTRY ? join(dir, STORE_ENTRY) : null), onBytes);
    const manifest = checkAgainstManifest(result);
    checkStore(join(dir, STORE_ENTRY), manifest);
    return summarize(manifest);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
