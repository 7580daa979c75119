import { describe, expect, test } from "bun:test";
import { encryptPdf } from "../../src/pdf/encrypt";
import { openPkcs12, Pkcs12Error, validityProblem } from "../../src/pdf/pkcs12";
import { signPdf } from "../../src/pdf/sign";
import { makePkcs12, poppler } from "./certs";
import { samplePdf } from "./sample";

const p12 = makePkcs12({ commonName: "Unit Signer" });

async function rejection(bytes: Uint8Array, password: string): Promise<Pkcs12Error> {
  try {
    await openPkcs12(bytes, password);
  } catch (e) {
    if (e instanceof Pkcs12Error) return e;
    throw e;
  }
  throw new Error("openPkcs12 accepted the file");
}

describe("openPkcs12", () => {
  test("reads the certificate's facts from an OpenSSL 3 default file", async () => {
    const { facts, signer } = await openPkcs12(p12, "secret");
    expect(facts.subject).toContain("CN=Unit Signer");
    expect(facts.issuer).toContain("CN=Unit Signer");
    expect(facts.sha256Fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(facts.serialNumber).toMatch(/^[0-9a-f]+$/);
    expect(facts.notAfter.getTime() - facts.notBefore.getTime()).toBe(30 * 24 * 3600 * 1000);
    expect(signer.keyType).toBe("RSA");
  });

  test("reads a legacy (3DES) file and an EC key", async () => {
    expect((await openPkcs12(makePkcs12({ legacy: true }), "secret")).facts.subject).toContain("Renderd Test Signer");
    expect((await openPkcs12(makePkcs12({ key: "ec" }), "secret")).signer.keyType).toBe("EC");
  });

  test("says which field is wrong for each unusable file", async () => {
    expect(await rejection(p12, "wrong")).toMatchObject({ field: "password", message: expect.stringContaining("password") });
    expect(await rejection(new TextEncoder().encode("not a pkcs12 file"), "secret")).toMatchObject({ field: "pkcs12", message: expect.stringContaining("not a readable PKCS#12") });
    expect(await rejection(makePkcs12({ noKey: true }), "secret")).toMatchObject({ field: "pkcs12", message: expect.stringContaining("no private key") });
    expect(await rejection(makePkcs12({ key: "ed25519" }), "secret")).toMatchObject({ field: "pkcs12", message: expect.stringContaining("key type") });
  });

  test("validityProblem names an expired or not yet valid certificate", async () => {
    const { facts } = await openPkcs12(p12, "secret");
    expect(validityProblem(facts, new Date(facts.notBefore.getTime() + 1000))).toBeNull();
    expect(validityProblem(facts, new Date(facts.notAfter.getTime() + 1000))).toContain("expired");
    expect(validityProblem(facts, new Date(facts.notBefore.getTime() - 1000))).toContain("not valid before");
  });
});

describe("signPdf", () => {
  test("pdfsig reports a valid PAdES signature over the whole file naming the signer", async () => {
    const { signer } = await openPkcs12(p12, "secret");
    const signed = await signPdf(await samplePdf(), { signer, reason: "Approved", location: "Berlin" });
    const check = poppler("pdfsig", signed);
    expect(check.exitCode).toBe(0);
    expect(check.out).toContain("Signature is Valid.");
    expect(check.out).toContain("Signer Certificate Common Name: Unit Signer");
    expect(check.out).toContain("Signature Type: ETSI.CAdES.detached");
    expect(check.out).toContain("Signing Hash Algorithm: SHA-256");
    expect(check.out).toContain("Total document signed");
    // The second signed range ends at the file's last byte.
    expect(check.out).toContain(`- ${signed.length}]`);
  });

  test("an EC key signs validly too", async () => {
    const { signer } = await openPkcs12(makePkcs12({ key: "ec", commonName: "EC Signer" }), "secret");
    const check = poppler("pdfsig", await signPdf(await samplePdf(), { signer }));
    expect(check.out).toContain("Signature is Valid.");
    expect(check.out).toContain("EC Signer");
  });
});

describe("encryptPdf", () => {
  test("encrypts with AES-256: opens with the user or owner password only", async () => {
    const encrypted = await encryptPdf(await samplePdf(), { user: "open-me", owner: "own-me", permissions: { copy: false } });
    const info = poppler("pdfinfo", encrypted, ["-upw", "open-me"]);
    expect(info.out).toMatch(/Encrypted:\s+yes \(.*algorithm:AES-256\)/);
    expect(info.out).toContain("copy:no");
    expect(poppler("pdftotext", encrypted).exitCode).not.toBe(0);
    expect(poppler("pdftotext", encrypted, ["-upw", "wrong"]).exitCode).not.toBe(0);
    expect(poppler("pdftotext", encrypted, ["-upw", "open-me"]).out).toContain("Invoice 42");
    expect(poppler("pdftotext", encrypted, ["-opw", "own-me"]).out).toContain("Invoice 42");
  });

  test("encrypt then sign gives a signed, encrypted file pdfsig reports valid", async () => {
    const { signer } = await openPkcs12(p12, "secret");
    const encrypted = await encryptPdf(await samplePdf(), { user: "open-me", owner: "own-me" });
    const signed = await signPdf(encrypted, { signer, password: "own-me" });
    expect(poppler("pdfinfo", signed, ["-upw", "open-me"]).out).toMatch(/Encrypted:\s+yes/);
    const check = poppler("pdfsig", signed, ["-upw", "open-me"]);
    expect(check.out).toContain("Signature is Valid.");
    expect(check.out).toContain("Total document signed");
  });
});
