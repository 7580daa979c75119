/** store/files: the seam for file bytes (DESIGN.md 1 and 6; docs/architecture.md "Seams"). Everything above the store
 * reads and writes the bytes of assets and render outputs through FileStore, never through a path: the files under
 * DATA_DIR today (files-disk.ts), an S3-compatible bucket when S3_BUCKET is set (files-s3.ts). Both are
 * content-addressed (`<area>/ab/cd/<sha256>`), and both stage an upload in a local temporary file first
 * (files-staging.ts), so a body is hashed and checked before anything reaches the store. */
import type { TempFile, WriteOptions } from "./files-staging";

export { SourceFailed, TooManyBytes, type TempFile, type WriteOptions } from "./files-staging";

/** FileArea is where a file belongs: the uploaded assets, or the PDFs renders produced. */
export type FileArea = "assets" | "outputs";

/** StoredFile is a stored file to stream or read; it may have been deleted since it was named. */
export interface StoredFile {
  exists(): Promise<boolean>;
  bytes(): Promise<Uint8Array>;
  /** body answers the bytes as a Response body, streamed: never a redirect to the bucket, whose address a client may
   * not reach (and whose answer would carry none of our headers). */
  body(): Blob | ReadableStream<Uint8Array>;
}

/** FileStore is the file bytes seam: content-addressed files in two areas, and the local staging of uploads. */
export interface FileStore {
  /** writeTemp streams `source` into a new local temporary file, hashing it, refusing more than `maxBytes`
   * (TooManyBytes) and deleting the file on any failure; the file is held for `owner` until committed or discarded. */
  writeTemp(owner: string, source: AsyncIterable<Uint8Array> | null, options: WriteOptions): Promise<TempFile>;
  /** discard deletes a temporary file that will not be committed. */
  discard(temp: TempFile): void;
  /** isHeldBy tells whether a temporary file of this owner is being written or waits to be committed. */
  isHeldBy(owner: string): boolean;
  /** sweepTemp deletes the temporary files this process is not holding (left by a crash) and answers how many. */
  sweepTemp(): number;
  /** commit stores a temporary file durably in `area` under its sha256 and lets the temporary file go. */
  commit(area: FileArea, temp: TempFile): Promise<void>;
  /** put stores `bytes` durably in `area` under their sha256 and answers the sha256; a caller that has hashed them
   * already passes it (a PDF is hashed once). */
  put(area: FileArea, owner: string, bytes: Uint8Array, sha256?: string): Promise<string>;
  /** putMany stores several files durably in `area` under their sha256, together: it answers once all of them are
   * stored, or fails (some may be stored then, whole). The output spool writes its PDFs so (output-spool.ts). */
  putMany(area: FileArea, owner: string, files: readonly FileBytes[]): Promise<void>;
  /** open answers the stored file, to stream (it may not exist: check `exists()`). */
  open(area: FileArea, sha256: string): StoredFile;
  /** read answers the whole stored file, or null when there is none. */
  read(area: FileArea, sha256: string): Promise<Uint8Array | null>;
  /** stat answers the stored file's size, or null when there is none. */
  stat(area: FileArea, sha256: string): Promise<{ size: number } | null>;
  /** delete deletes the stored file, if any. */
  delete(area: FileArea, sha256: string): Promise<void>;
  /** list answers the stored files of `area`, a page at a time, each with when it was last written; it walks the whole area. */
  list(area: FileArea): AsyncIterable<ListedFile[]>;
  /** close finishes the writes under way and lets go of what the store holds open (a thread); a server's stop calls
   * it last. */
  close(): Promise<void>;
}

/** FileBytes is a file's bytes in memory with their sha256. */
export interface FileBytes {
  sha256: string;
  bytes: Uint8Array;
}

/** ListedFile is a stored file as `list` finds it: its sha256 and when it was last written (mtime; S3's LastModified). */
export interface ListedFile {
  sha256: string;
  modifiedAt: Date;
}

/** LIST_PAGE is how many files one page of `list` holds: S3's most per request. */
export const LIST_PAGE = 1000;

const SHA256 = /^[a-f0-9]{64}$/;

/** isSha256 tells whether `name` is a lowercase hex sha256. */
export function isSha256(name: string): boolean {
  return SHA256.test(name);
}

/** contentKey answers where the file with this sha256 lives inside `root`: `<root>/ab/cd/<sha256>` (content-addressed);
 * anything but a sha256 is refused (no path tricks). */
export function contentKey(root: string, sha256: string): string {
  if (!SHA256.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
  return `${root}/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
}
