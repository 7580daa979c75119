/** The compiled binary delivers with its bundled SFTP and SMTP libraries and Bun's S3 client (docs/decisions.md). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, startServe, type ServeProcess } from "../serve-process";
import { attachmentOf, S3_BUCKET, S3_KEY, sha256Hex, startHttpReceiver, startS3, startSftpTarget, startSmtp, type Sshd } from "./servers";

const work = mkdtempSync(join(tmpdir(), "renderd-dest-binary-"));
const binary = join(work, "renderd");
let serve: ServeProcess;
let s3: Awaited<ReturnType<typeof startS3>>;
let sshd: Sshd;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let http: ReturnType<typeof startHttpReceiver>;

beforeAll(async () => {
  const build = Bun.spawnSync([process.execPath, "run", "scripts/build.ts", "cli/main.ts", binary], { cwd: ROOT, stderr: "pipe", stdout: "pipe" });
  expect(build.exitCode, build.stderr.toString()).toBe(0);
  [s3, sshd, smtp] = await Promise.all([startS3(), startSftpTarget(), startSmtp()]);
  http = startHttpReceiver();
  serve = await startServe([binary], { DESTINATION_ALLOW_PRIVATE: "1" });
}, 120_000);
afterAll(async () => {
  await serve?.stop();
  http?.stop();
  await Promise.all([s3?.stop(), sshd?.stop(), smtp?.stop()]);
  rmSync(work, { recursive: true, force: true });
});

test("a render made by the compiled binary reaches s3, sftp, e-mail and http byte for byte", async () => {
  const key = await serve.makeKey(["destination:manage", "render:create", "render:read"]);
  const configs = [
    { type: "s3", config: { bucket: S3_BUCKET, region: "us-east-1", endpoint: s3.endpoint, forcePathStyle: true, ...S3_KEY } },
    { type: "sftp", config: { host: "127.0.0.1", port: sshd.port, username: sshd.user, privateKey: sshd.privateKey, hostKeySha256: sshd.fingerprint, directory: sshd.directory } },
    { type: "email", config: { smtpHost: "127.0.0.1", smtpPort: smtp.port, secure: false, from: "renderd@example.test", to: ["books@example.test"] } },
    { type: "http", config: { url: `${http.url}/in`, method: "POST" } },
  ];
  const ids: string[] = [];
  for (const c of configs) {
    const made = await serve.call("/v1/destinations", key, { name: c.type, ...c });
    expect(made.status).toBe(201);
    ids.push(made.body.id);
  }
  const render = await serve.call("/v1/renders?wait=30", key, { html: "<h1>From the binary</h1>", filename: "binary.pdf", destinationIds: ids });
  expect(render.status).toBe(200);
  let shown: any;
  for (const end = Date.now() + 30_000; Date.now() < end; await Bun.sleep(100)) {
    shown = (await serve.call(`/v1/renders/${render.body.id}`, key)).body;
    if (shown.deliveries.every((d: any) => d.status !== "pending")) break;
  }
  expect(shown.deliveries.map((d: any) => [d.status, d.lastError])).toEqual(ids.map(() => ["delivered", undefined]));
  const pdf = new Uint8Array(await (await fetch(shown.result.downloadUrl.replace(/^https?:\/\/[^/]+/, serve.url))).arrayBuffer());
  const want = sha256Hex(pdf);
  expect(sha256Hex(await s3.read("binary.pdf"))).toBe(want);
  expect(sha256Hex(readFileSync(join(sshd.directory, "binary.pdf")))).toBe(want);
  expect(sha256Hex(attachmentOf(smtp.messages.at(-1)!.raw).bytes)).toBe(want);
  expect(sha256Hex(http.requests.at(-1)!.bytes)).toBe(want);
});
