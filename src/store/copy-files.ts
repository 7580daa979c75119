/** store/copy-files: copies content-addressed files from one FileStore to another (`renderd migrate --to-postgres`:
 * DATA_DIR's files into the bucket), checking each file's sha256 on the way. */
import { contentKey, type FileArea, type FileStore } from "./files";

/** FileRef names one stored file; `bytes` are its bytes when they are not in the source's files (a PDF a store snapshot
 * held spooled: store/output-spool.ts). */
export interface FileRef {
  area: FileArea;
  sha256: string;
  bytes?: Uint8Array;
}

/** FilesCopied counts what copyFiles did: copied, already there with the same size, or missing from the source. */
export interface FilesCopied {
  copied: number;
  present: number;
  bytes: number;
  missing: FileRef[];
}

// The owner of the staged copies in the target's temporary area.
const OWNER = "migrate-to-postgres";

/** copyFiles copies each of `files` from `from` to `to`, skipping those `to` holds with the same size; a file whose bytes do not hash to its name stops the copy. */
export async function copyFiles(from: FileStore, to: FileStore, files: FileRef[], onFile?: (done: number, total: number, bytes: number) => void): Promise<FilesCopied> {
  const result: FilesCopied = { copied: 0, present: 0, bytes: 0, missing: [] };
  for (const [i, file] of files.entries()) {
    const size = file.bytes?.byteLength ?? (await from.stat(file.area, file.sha256))?.size;
    if (size === undefined) result.missing.push(file);
    else if ((await to.stat(file.area, file.sha256))?.size === size) result.present += 1;
    else {
      await copyOne(from, to, file, size);
      result.copied += 1;
      result.bytes += size;
    }
    onFile?.(i + 1, files.length, result.bytes);
  }
  return result;
}

// Streamed through the target's staging, which hashes it: a damaged file is refused before it reaches the bucket.
async function copyOne(from: FileStore, to: FileStore, file: FileRef, size: number): Promise<void> {
  const body = file.bytes ? new Blob([file.bytes as Uint8Array<ArrayBuffer>]) : from.open(file.area, file.sha256).body();
  // Bun's ReadableStream is async-iterable; the DOM types do not say so.
  const source = (body instanceof ReadableStream ? body : body.stream()) as unknown as AsyncIterable<Uint8Array>;
  const temp = await to.writeTemp(OWNER, source, { maxBytes: size });
  if (temp.sha256 !== file.sha256) {
    to.discard(temp);
    throw new Error(`${contentKey(file.area, file.sha256)} does not hash to its name (it hashes to ${temp.sha256}): the file is damaged; restore it from a backup before migrating.`);
  }
  try {
    await to.commit(file.area, temp);
  } catch (e) {
    to.discard(temp);
    throw e;
  }
}
