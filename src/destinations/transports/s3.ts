/** transports/s3: a file written to a bucket with Bun's own S3 client (docs/decisions.md). */
import { S3Client } from "bun";
import type { S3Config } from "../settings";
import { withTimeout, type Dial, type OutgoingFile } from "./file";

/** deliverS3 writes the file as `<prefix><filename>` and answers its `s3://bucket/key` location. */
export async function deliverS3(config: S3Config, file: OutgoingFile, dial: Dial): Promise<string> {
  const key = `${config.prefix ?? ""}${file.filename}`;
  // Bun's client takes no address to dial: the checked name is dialled by name (docs/destinations.md "Limits").
  const client = new S3Client({
    accessKeyId: config.accessKeyId,
    secretAccessKey: config.secretAccessKey,
    region: config.region,
    bucket: config.bucket,
    endpoint: dial.url.origin,
    virtualHostedStyle: !config.forcePathStyle,
  });
  await withTimeout(client.write(key, file.bytes, { type: file.mediaType }), dial.timeoutMs, "The upload");
  return `s3://${config.bucket}/${key}`;
}
