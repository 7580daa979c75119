/** s3-server: an S3-compatible server for tests (s3rver, from npm) on a free loopback port, with one bucket. */
import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import S3rver from "s3rver";
import type { S3Settings } from "../../src/store/files-s3";

/** The part of s3rver's FilesystemStore that writes an object. */
interface ObjectStore {
  getResourcePath(bucket: string, key: string, resource: "object"): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: { bucket: string; key: string; metadata: unknown; content: Buffer | AsyncIterable<Buffer> }): Promise<{ size: number; md5: string }>;
}

/** readAfterWrite makes s3rver's writes whole before they are seen, as S3's are: s3rver answers a PUT before the
 * object's bytes are on disk and writes them in place, its metadata after, so a GET or HEAD right after the answer
 * could read part of the object or fail (one PostgreSQL pass in ten met it once PDFs were spilled to the bucket right
 * after their render's answer). Written aside, its metadata first, then renamed into place. */
function readAfterWrite(store: ObjectStore, scratch: string): void {
  store.putObject = async (object) => {
    const content = Buffer.isBuffer(object.content) ? object.content : Buffer.concat(await Array.fromAsync(object.content));
    const md5 = createHash("md5").update(content).digest("hex");
    const path = store.getResourcePath(object.bucket, object.key, "object");
    const aside = join(scratch, randomUUID());
    writeFileSync(aside, content);
    mkdirSync(dirname(path), { recursive: true });
    await store.putMetadata(object.bucket, object.key, object.metadata, md5);
    renameSync(aside, path);
    return { size: content.length, md5 };
  };
}

/** TestBucket is a running S3 server: the settings to reach its bucket, and stop(). */
export interface TestBucket {
  settings: S3Settings;
  stop(): Promise<void>;
}

/** startS3 starts s3rver on 127.0.0.1 (port chosen by the system) with the bucket `renderd`; stop() removes its files. */
export async function startS3(): Promise<TestBucket> {
  const directory = mkdtempSync(join(tmpdir(), "renderd-s3-"));
  const scratch = mkdtempSync(join(tmpdir(), "renderd-s3-writes-"));
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: "renderd", configs: [] }] });
  readAfterWrite((server as unknown as { store: ObjectStore }).store, scratch);
  const { port } = (await server.run()) as { port: number };
  return {
    // s3rver's fixed credentials.
    settings: { bucket: "renderd", endpoint: `http://127.0.0.1:${port}`, region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
