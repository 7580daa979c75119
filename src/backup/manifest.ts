/** backup/manifest: what a backup archive holds — its entry names, and the manifest that lists every file with its sha256. */
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { version } from "../../package.json";

/** FORMAT_VERSION is the archive layout this renderd writes and reads; a newer one is refused with a clear line. */
export const FORMAT_VERSION = 1;
/** RENDERD_VERSION is the version recorded in each manifest. */
export const RENDERD_VERSION: string = version;

/** The entries that are not content-addressed: the manifest, the store snapshot and the key (named as in DATA_DIR). */
export const MANIFEST_ENTRY = "manifest.json";
export const STORE_ENTRY = "renderd.db";
export const SECRET_ENTRY = "secret.key";

const SHA256 = "^[a-f0-9]{64}$";

/** ManifestFile is one archived file: its path inside the archive (and inside DATA_DIR), size and sha256. */
export const ManifestFile = Type.Object(
  { path: Type.String(), size: Type.Integer({ minimum: 0 }), sha256: Type.String({ pattern: SHA256 }) },
  { additionalProperties: false },
);
export type ManifestFile = Static<typeof ManifestFile>;

/** Missing is a file the snapshot references that was gone when the backup came to read it (retention removed it). */
export const Missing = Type.Object({ path: Type.String(), reason: Type.String() }, { additionalProperties: false });
export type Missing = Static<typeof Missing>;

/** Manifest is manifest.json, the archive's last entry (written once every file's sha256 is known). */
export const Manifest = Type.Object(
  {
    format: Type.Literal("renderd-backup"),
    formatVersion: Type.Literal(FORMAT_VERSION),
    renderdVersion: Type.String(),
    /** ISO 8601, UTC. */
    createdAt: Type.String(),
    migration: Type.Object({ version: Type.Integer({ minimum: 0 }), name: Type.String() }, { additionalProperties: false }),
    files: Type.Array(ManifestFile),
    missing: Type.Array(Missing),
  },
  { additionalProperties: false },
);
export type Manifest = Static<typeof Manifest>;

// A content-addressed file keeps its DATA_DIR path (store/files contentKey): `assets/ab/cd/<sha256>` or `outputs/ab/cd/<sha256>`.
const CONTENT = /^(assets|outputs)\/([a-f0-9]{2})\/([a-f0-9]{2})\/([a-f0-9]{64})$/;

/** addressedSha256 answers the sha256 a content-addressed path names, or null for the store, the key and the manifest. */
export function addressedSha256(path: string): string | null {
  return CONTENT.exec(path)?.[4] ?? null;
}

/** isEntryName tells whether a name may appear in an archive: anything else (`../x`, `/etc/…`, a link) is refused before it is written. */
export function isEntryName(name: string): boolean {
  if (name === MANIFEST_ENTRY || name === STORE_ENTRY || name === SECRET_ENTRY) return true;
  const m = CONTENT.exec(name);
  return m !== null && m[4].startsWith(m[2] + m[3]);
}

/** parseManifest reads manifest.json, or throws one line saying what is wrong with it. */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error("manifest.json is not JSON: the archive is damaged.");
  }
  const format = (value as { formatVersion?: unknown })?.formatVersion;
  if (typeof format === "number" && format > FORMAT_VERSION)
    throw new Error(`the archive has format ${format}, newer than this renderd reads (${FORMAT_VERSION}): use a newer renderd.`);
  const error = Value.Errors(Manifest, value).First();
  if (error) throw new Error(`manifest.json is not a renderd backup manifest (${error.path || "/"}: ${error.message}).`);
  return value as Manifest;
}
