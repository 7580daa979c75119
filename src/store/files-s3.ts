/** store/files-s3: the FileStore on an S3-compatible bucket (S3_BUCKET; docs/scale-out.md), through Bun's built-in
 * S3Client, so that several renderd processes on several hosts share the files. Keys are `<area>/ab/cd/<sha256>`, as
 * on disk. Uploads are staged and checked on local disk first (files-staging.ts), then sent to the bucket. */
import { S3Client } from "bun";
import { sha256Hex } from "../lib/hash";
import { contentKey, isSha256, LIST_PAGE, type FileArea, type FileBytes, type FileStore, type ListedFile, type StoredFile } from "./files";
import { StagedFiles, type TempFile } from "./files-staging";

/** S3Settings are the bucket and its credentials (the runtime's own S3_* names). */
export interface S3Settings {
  bucket: string;
  endpoint?: string;
  region?: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** S3Files keeps the files of both areas in one bucket. */
export class S3Files extends StagedFiles implements FileStore {
  private readonly client: S3Client;

  constructor(dataDir: string, settings: S3Settings) {
    super(dataDir);
    this.client = new S3Client(settings);
  }

  async commit(area: FileArea, temp: TempFile): Promise<void> {
    // An object appears whole or not at all; identical bytes already there are replaced by the same bytes.
    await this.client.write(contentKey(area, temp.sha256), Bun.file(temp.path));
    this.staging.discard(temp);
  }

  async put(area: FileArea, _owner: string, bytes: Uint8Array, sha256 = sha256Hex(bytes)): Promise<string> {
    await this.client.write(contentKey(area, sha256), bytes);
    return sha256;
  }

  async putMany(area: FileArea, owner: string, files: readonly FileBytes[]): Promise<void> {
    // Each object is whole once written: a batch is its objects sent side by side.
    await Promise.all(files.map(({ sha256, bytes }) => this.put(area, owner, bytes, sha256)));
  }

  open(area: FileArea, sha256: string): StoredFile {
    const file = this.client.file(contentKey(area, sha256));
    // An S3File given to a Response would answer a redirect to the bucket: stream it through instead.
    return { exists: () => file.exists(), bytes: () => file.bytes(), body: () => file.stream() };
  }

  async read(area: FileArea, sha256: string): Promise<Uint8Array | null> {
    const file = this.client.file(contentKey(area, sha256));
    try {
      return await file.bytes();
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  async stat(area: FileArea, sha256: string): Promise<{ size: number } | null> {
    try {
      return { size: (await this.client.stat(contentKey(area, sha256))).size };
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  async delete(area: FileArea, sha256: string): Promise<void> {
    // Deleting a key that is not there succeeds (S3 semantics), as rm -f does.
    await this.client.delete(contentKey(area, sha256));
  }

  async close(): Promise<void> {
    // Nothing to let go: Bun's S3Client has no close, its requests share the runtime's HTTP connections.
  }

  async *list(area: FileArea): AsyncIterable<ListedFile[]> {
    let startAfter: string | undefined;
    for (;;) {
      const page = await this.client.list({ prefix: `${area}/`, maxKeys: LIST_PAGE, ...(startAfter ? { startAfter } : {}) });
      const contents = page.contents ?? [];
      const listed: ListedFile[] = [];
      for (const { key, lastModified } of contents) {
        const name = key.slice(key.lastIndexOf("/") + 1);
        // A key without a date counts as written now: young files are kept.
        if (isSha256(name) && key === contentKey(area, name)) listed.push({ sha256: name, modifiedAt: lastModified ? new Date(lastModified) : new Date() });
      }
      if (listed.length) yield listed;
      if (!page.isTruncated || contents.length === 0) return;
      startAfter = contents.at(-1)!.key;
    }
  }
}

/** isMissing tells whether an S3 error says the key does not exist (a GET and a HEAD both answer NoSuchKey). */
function isMissing(e: unknown): boolean {
  return (e as { code?: string })?.code === "NoSuchKey";
}
