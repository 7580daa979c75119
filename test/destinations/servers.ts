/** servers: real delivery targets on 127.0.0.1 for the destination tests — s3rver, OpenSSH's sshd with its own host key and
 * a key-only user, an SMTP sink (smtp-server) and an HTTP receiver — each in a temporary folder, stopped by its test. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client } from "bun";
import S3rver from "s3rver";
import { SMTPServer } from "smtp-server";
import { freePort } from "../serve-process";

/** sha256Hex of some bytes, to compare what arrived with the render's file. */
export function sha256Hex(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

export const S3_BUCKET = "renders";
// s3rver's fixed credentials.
export const S3_KEY = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

/** startS3 runs s3rver with one bucket; `read` answers an object's bytes. */
export async function startS3(): Promise<{ endpoint: string; read(key: string): Promise<Uint8Array>; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "renderd-s3-"));
  const port = await freePort();
  const server = new S3rver({ port, address: "127.0.0.1", silent: true, directory: dir, configureBuckets: [{ name: S3_BUCKET, configs: [] }] });
  await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ ...S3_KEY, endpoint, bucket: S3_BUCKET, region: "us-east-1" });
  return {
    endpoint,
    read: (key) => client.file(key).bytes(),
    async stop() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Sshd {
  port: number;
  user: string;
  privateKey: string;
  /** The host key's fingerprint as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  /** A folder the user may write to. */
  directory: string;
  stop(): Promise<void>;
}

async function run(cmd: string[]): Promise<string> {
  const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`${cmd.join(" ")} failed: ${err}`);
  return out;
}

/** startSftpTarget runs `/usr/sbin/sshd -D` on a free port with its own config and host key; the current user (root in CI) signs
 * in with a generated key only. */
export async function startSftpTarget(): Promise<Sshd> {
  const dir = mkdtempSync(join(tmpdir(), "renderd-sshd-"));
  await run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_key")]);
  await run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client_key")]);
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "client_key.pub")));
  const fingerprint = (await run(["ssh-keygen", "-lf", join(dir, "host_key.pub")])).split(" ")[1]!;
  const upload = join(dir, "upload");
  // sshd started by root wants its privilege-separation folder; an unprivileged sshd serves only its own user and needs none.
  await run(["mkdir", "-p", upload, ...(process.getuid?.() === 0 ? ["/run/sshd"] : [])]);
  const port = await freePort();
  const user = (await run(["id", "-un"])).trim();
  writeFileSync(
    join(dir, "sshd_config"),
    [
      `ListenAddress 127.0.0.1`,
      `HostKey ${join(dir, "host_key")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PubkeyAuthentication yes",
      "PermitRootLogin prohibit-password",
      "StrictModes no",
      "UsePAM no",
      "Subsystem sftp internal-sftp",
      "",
    ].join("\n"),
  );
  const proc = Bun.spawn(["/usr/sbin/sshd", "-D", "-e", "-f", join(dir, "sshd_config"), "-p", String(port)], { stdout: "ignore", stderr: "pipe" });
  // Listening once a TCP connection is accepted.
  for (let i = 0; ; i++) {
    try {
      const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
      socket.end();
      break;
    } catch (e) {
      if (i > 100 || proc.exitCode !== null) throw new Error(`sshd did not start: ${await new Response(proc.stderr).text()}`);
      await Bun.sleep(50);
    }
  }
  return {
    port,
    user,
    privateKey: readFileSync(join(dir, "client_key"), "utf8"),
    fingerprint,
    directory: upload,
    async stop() {
      proc.kill();
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Mail {
  from: string;
  to: string[];
  raw: string;
}

/** startSmtp runs an SMTP sink without TLS or authentication that keeps every message. */
export async function startSmtp(): Promise<{ port: number; messages: Mail[]; stop(): Promise<void> }> {
  const messages: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        messages.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString("utf8") });
        done();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((ok) => server.listen(port, "127.0.0.1", ok));
  return { port, messages, stop: () => new Promise<void>((ok) => server.close(() => ok())) };
}

/** attachmentOf answers a message's attachment: its file name and decoded bytes (nodemailer sends it base64). */
export function attachmentOf(raw: string): { filename: string; bytes: Uint8Array } {
  const part = raw.split(/\r?\n--/).find((p) => /Content-Disposition: attachment/i.test(p));
  if (!part) throw new Error("no attachment in the message");
  const filename = /filename="?([^";\r\n]+)"?/i.exec(part)![1]!;
  const body = part.split(/\r?\n\r?\n/).slice(1).join("").replace(/\s+/g, "");
  return { filename, bytes: new Uint8Array(Buffer.from(body, "base64")) };
}

/** subjectOf answers a message's Subject header, decoded when it is an encoded word. */
export function subjectOf(raw: string): string {
  const line = /^Subject: (.*(?:\r?\n[ \t].*)*)/im.exec(raw)![1]!.replace(/\r?\n[ \t]/g, " ");
  return line.replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_, enc: string, text: string) =>
    enc.toUpperCase() === "B" ? Buffer.from(text, "base64").toString("utf8") : text.replace(/_/g, " ").replace(/=([0-9A-F]{2})/gi, (__, h: string) => String.fromCharCode(parseInt(h, 16))),
  );
}

/** startHttpReceiver answers 201 to every request and keeps its method, path, headers and body bytes. */
export function startHttpReceiver(): { url: string; requests: Array<{ method: string; path: string; headers: Headers; bytes: Uint8Array }>; stop(): void } {
  const requests: Array<{ method: string; path: string; headers: Headers; bytes: Uint8Array }> = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      requests.push({ method: request.method, path: new URL(request.url).pathname, headers: request.headers, bytes: new Uint8Array(await request.arrayBuffer()) });
      return new Response(null, { status: 201 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}
