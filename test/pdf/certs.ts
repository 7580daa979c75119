/** certs: self-signed PKCS#12 files made with the openssl CLI for the signing tests (OpenSSL 3 defaults, or -legacy 3DES). */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestPkcs12Options {
  commonName?: string;
  password?: string;
  days?: number;
  /** "rsa" (2048), "ec" (P-256) or "ed25519" (not supported for signing). */
  key?: "rsa" | "ec" | "ed25519";
  legacy?: boolean;
  /** Export the certificate without its key. */
  noKey?: boolean;
}

function openssl(dir: string, args: string[]): void {
  const run = Bun.spawnSync(["openssl", ...args], { cwd: dir, stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${run.stderr.toString()}`);
}

/** makePkcs12 answers the bytes of a fresh self-signed PKCS#12 file. */
export function makePkcs12(options: TestPkcs12Options = {}): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "renderd-p12-"));
  try {
    const key = options.key ?? "rsa";
    const keyArgs = key === "rsa" ? ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"] : key === "ec" ? ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"] : ["-algorithm", "ED25519"];
    openssl(dir, ["genpkey", ...keyArgs, "-out", "key.pem"]);
    openssl(dir, ["req", "-x509", "-utf8", "-key", "key.pem", "-out", "cert.pem", "-days", String(options.days ?? 30), "-subj", `/CN=${options.commonName ?? "Renderd Test Signer"}/O=Renderd Tests`]);
    const keyPart = options.noKey ? ["-nokeys"] : ["-inkey", "key.pem"];
    openssl(dir, ["pkcs12", "-export", ...keyPart, "-in", "cert.pem", "-out", "out.p12", "-passout", `pass:${options.password ?? "secret"}`, ...(options.legacy ? ["-legacy"] : [])]);
    return new Uint8Array(readFileSync(join(dir, "out.p12")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** poppler runs a poppler tool (pdfsig, pdfinfo, pdftotext) on PDF bytes and answers its exit code and output. */
export function poppler(tool: string, bytes: Uint8Array, args: string[] = []): { exitCode: number; out: string } {
  const dir = mkdtempSync(join(tmpdir(), "renderd-pdf-"));
  try {
    const file = join(dir, "doc.pdf");
    writeFileSync(file, bytes);
    const run = Bun.spawnSync([tool, ...args, file, ...(tool === "pdftotext" ? ["-"] : [])], { stderr: "pipe" });
    return { exitCode: run.exitCode, out: run.stdout.toString() + run.stderr.toString() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
