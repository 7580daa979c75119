/** store/open-files: the FileStore the configuration asks for — the S3-compatible bucket when S3_BUCKET is set, else the
 * files under DATA_DIR (loadConfig has refused a bucket without its credentials). */
import type { Config } from "../config";
import type { Clock } from "../lib/clock";
import type { FileStore } from "./files";
import { DiskFiles } from "./files-disk";
import { S3Files, type S3Settings } from "./files-s3";
import { SpooledFiles } from "./output-spool";
import type { Store } from "./store";

/** s3Settings answers the bucket's settings from S3_*, or undefined without S3_BUCKET. */
export function s3Settings(config: Config): S3Settings | undefined {
  if (config.s3Bucket === undefined) return undefined;
  return {
    bucket: config.s3Bucket,
    endpoint: config.s3Endpoint,
    region: config.s3Region,
    accessKeyId: config.s3AccessKeyId!,
    secretAccessKey: config.s3SecretAccessKey!,
  };
}

/** openFiles answers the configured FileStore; uploads are staged under DATA_DIR either way. */
export function openFiles(config: Config): FileStore {
  const settings = s3Settings(config);
  return settings === undefined ? new DiskFiles(config.dataDir) : new S3Files(config.dataDir, settings);
}

/** openSpooledFiles answers the configured FileStore with the PDFs spooled in `store` (store/output-spool.ts): what a
 * process that prints, serves or shows renders' PDFs works with. */
export function openSpooledFiles(config: Config, store: Store, clock: Clock): SpooledFiles {
  return new SpooledFiles(openFiles(config), store, clock);
}
