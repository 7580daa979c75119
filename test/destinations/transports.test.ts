import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deliver } from "../../src/destinations/transports";
import type { DestinationConfig } from "../../src/destinations/settings";
import type { DestinationOptions } from "../../src/webhooks/destinations";
import { attachmentOf, S3_BUCKET, S3_KEY, sha256Hex, startHttpReceiver, startS3, startSftpTarget, startSmtp, subjectOf, type Sshd } from "./servers";

// DESTINATION_ALLOW_PRIVATE=1: every server here is on loopback.
const hosts: DestinationOptions = { allowHttp: true, allowPrivate: true, resolve: async () => [] };
const strict: DestinationOptions = { allowHttp: false, allowPrivate: false, resolve: async () => [] };
const bytes = new TextEncoder().encode("%PDF-1.7 not really, but bytes are bytes\n");
const file = { bytes, filename: "invoice-42.pdf", mediaType: "application/pdf", subject: "Invoice 42" };

let s3: Awaited<ReturnType<typeof startS3>>;
let sshd: Sshd;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let http: ReturnType<typeof startHttpReceiver>;

beforeAll(async () => {
  [s3, sshd, smtp] = await Promise.all([startS3(), startSftpTarget(), startSmtp()]);
  http = startHttpReceiver();
});
afterAll(async () => {
  http.stop();
  await Promise.all([s3.stop(), sshd.stop(), smtp.stop()]);
});

const sftp = (over: Partial<Extract<DestinationConfig, { type: "sftp" }>["config"]> = {}): DestinationConfig => ({
  type: "sftp",
  config: { host: "127.0.0.1", port: sshd.port, username: sshd.user, privateKey: sshd.privateKey, hostKeySha256: sshd.fingerprint, directory: sshd.directory, ...over },
});

describe("deliver", () => {
  test("s3: the object under prefix + file name holds the same bytes", async () => {
    const location = await deliver({ type: "s3", config: { bucket: S3_BUCKET, region: "us-east-1", endpoint: s3.endpoint, prefix: "in/", forcePathStyle: true, ...S3_KEY } }, file, hosts, 10_000);
    expect(location).toBe(`s3://${S3_BUCKET}/in/invoice-42.pdf`);
    expect(sha256Hex(await s3.read("in/invoice-42.pdf"))).toBe(sha256Hex(bytes));
  });

  test("sftp: the file lands in the directory, the host key pinned", async () => {
    const location = await deliver(sftp(), file, hosts, 10_000);
    expect(location).toBe(`sftp://127.0.0.1:${sshd.port}${sshd.directory}/invoice-42.pdf`);
    expect(sha256Hex(readFileSync(join(sshd.directory, "invoice-42.pdf")))).toBe(sha256Hex(bytes));
  });

  test("sftp: another host key is refused before signing in, and the error names both fingerprints", async () => {
    const wrong = "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    const error = await deliver(sftp({ hostKeySha256: wrong, directory: join(sshd.directory, "nope") }), file, hosts, 10_000).catch((e: Error) => e.message);
    expect(error).toContain(sshd.fingerprint);
    expect(error).toContain(wrong);
  });

  test("email: one message to every recipient with the file attached", async () => {
    const location = await deliver(
      { type: "email", config: { smtpHost: "127.0.0.1", smtpPort: smtp.port, secure: false, from: "renderd@example.test", to: ["a@example.test", "b@example.test"] } },
      file,
      hosts,
      10_000,
    );
    expect(location).toBe("mailto:a@example.test,b@example.test");
    const mail = smtp.messages.at(-1)!;
    expect(mail.to).toEqual(["a@example.test", "b@example.test"]);
    expect(subjectOf(mail.raw)).toBe("Invoice 42");
    const attached = attachmentOf(mail.raw);
    expect(attached.filename).toBe("invoice-42.pdf");
    expect(sha256Hex(attached.bytes)).toBe(sha256Hex(bytes));
  });

  test("http: one PUT with the file as its body and the configured headers", async () => {
    const location = await deliver({ type: "http", config: { url: `${http.url}/drop/here`, method: "PUT", headers: { authorization: "Bearer t0k3n" } } }, file, hosts, 10_000);
    expect(location).toBe(`${http.url}/drop/here`);
    const got = http.requests.at(-1)!;
    expect(got.method).toBe("PUT");
    expect(got.headers.get("authorization")).toBe("Bearer t0k3n");
    expect(got.headers.get("content-type")).toBe("application/pdf");
    expect(sha256Hex(got.bytes)).toBe(sha256Hex(bytes));
  });

  test("without DESTINATION_ALLOW_PRIVATE a loopback host is refused before any connection", async () => {
    const before = http.requests.length;
    const error = await deliver({ type: "http", config: { url: "https://127.0.0.1:1/x", method: "POST" } }, file, strict, 10_000).catch((e: Error) => e.message);
    expect(error).toContain("loopback");
    expect(error).toContain("DESTINATION_ALLOW_PRIVATE=1");
    const plain = await deliver({ type: "http", config: { url: `${http.url}/x`, method: "POST" } }, file, strict, 10_000).catch((e: Error) => e.message);
    expect(plain).toContain("must use https");
    expect(http.requests.length).toBe(before);
  });
});
