/** s3-server: an S3-compatible server for tests (s3rver, from npm) on a free loopback port, with one bucket. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import type { S3Settings } from "../../src/store/files-s3";

/** TestBucket is a running S3 server: the settings to reach its bucket, and stop(). */
export interface TestBucket {
  settings: S3Settings;
  stop(): Promise<void>;
}

/** startS3 starts s3rver on 127.0.0.1 (port chosen by the system) with the bucket `renderd`; stop() removes its files. */
export async function startS3(): Promise<TestBucket> {
  const directory = mkdtempSync(join(tmpdir(), "renderd-s3-"));
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: "renderd", configs: [] }] });
  const { port } = (await server.run()) as { port: number };
  return {
    // s3rver's fixed credentials.
    settings: { bucket: "renderd", endpoint: `http://127.0.0.1:${port}`, region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
