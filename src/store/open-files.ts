/** store/open-files: the FileStore the configuration asks for — the S3-compatible bucket when S3_BUCKET is set, else the
 * files under DATA_DIR (loadConfig has refused a bucket without its credentials). */
import type { Config } from "../config";
import type { FileStore } from "./files";
import { DiskFiles } from "./files-disk";
import { S3Files } from "./files-s3";

/** openFiles answers the configured FileStore; uploads are staged under DATA_DIR either way. */
export function openFiles(config: Config): FileStore {
  if (config.s3Bucket === undefined) return new DiskFiles(config.dataDir);
  return new S3Files(config.dataDir, {
    bucket: config.s3Bucket,
    endpoint: config.s3Endpoint,
    region: config.s3Region,
    accessKeyId: config.s3AccessKeyId!,
    secretAccessKey: config.s3SecretAccessKey!,
  });
}
