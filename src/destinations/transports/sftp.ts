/** transports/sftp: a file put on an SSH server over SFTP (ssh2-sftp-client, pure-JS ssh2), its host key pinned. */
import { createHash } from "node:crypto";
import { posix } from "node:path";
import SftpClient from "ssh2-sftp-client";
import type { SftpConfig } from "../settings";
import type { Dial, OutgoingFile } from "./file";

/** fingerprintOf answers a host key's fingerprint as `ssh-keygen -lf` prints it: `SHA256:` and unpadded base64. */
export function fingerprintOf(key: Buffer): string {
  return `SHA256:${createHash("sha256").update(key).digest("base64").replace(/=+$/, "")}`;
}

/** deliverSftp puts the file in the configured directory and answers its `sftp://host:port/path` location. */
export async function deliverSftp(config: SftpConfig, file: OutgoingFile, dial: Dial): Promise<string> {
  const port = config.port ?? 22;
  const path = posix.join(config.directory, file.filename);
  const client = new SftpClient();
  let presented: string | null = null;
  try {
    await client.connect({
      host: dial.address,
      port,
      username: config.username,
      password: config.password,
      privateKey: config.privateKey,
      readyTimeout: dial.timeoutMs,
      // The pin is the only trust an SSH server gets: a key that does not match ends the handshake before any password is sent.
      hostVerifier: (key: Buffer) => (presented = fingerprintOf(key)) === config.hostKeySha256,
    });
    await client.put(Buffer.from(file.bytes), path);
  } catch (err) {
    if (presented !== null && presented !== config.hostKeySha256)
      throw new Error(`The server's host key is ${presented}, not the hostKeySha256 configured (${config.hostKeySha256}); check the server, then update the destination.`);
    throw new Error(`SFTP failed: ${(err as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
  return `sftp://${dial.host.includes(":") ? `[${dial.host}]` : dial.host}:${port}${path}`;
}
