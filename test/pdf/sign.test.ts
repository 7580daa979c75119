import { describe, expect, test } from "bun:test";
import { encryptPdf } from "../../src/pdf/encrypt";
import { openPkcs12, Pkcs12Error, validityProblem } from "../../src/pdf/pkcs12";
import { signPdf } from "../../src/pdf/sign";
import { inkIn, textIn } from "./appearance";
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

describe("signPdf with a visible box", () => {
  // Top right of the sample's US Letter page (612 × 792 pt), clear of its text.
  const box = { page: 1, x: 330, y: 60, width: 240, height: 60 };
  const signingTime = new Date("2026-11-23T12:00:00Z");

  test("draws the box where asked, with signer, date, reason and location; the signature stays valid over the whole file", async () => {
    const { signer } = await openPkcs12(p12, "secret");
    const unsigned = await samplePdf();
    expect(inkIn(unsigned, box)).toBe(0);
    const signed = await signPdf(unsigned, { signer, reason: "Approved", location: "Berlin", signingTime, visible: box });
    const check = poppler("pdfsig", signed);
    expect(check.out).toContain("Signature is Valid.");
    expect(check.out).toContain("Signer Certificate Common Name: Unit Signer");
    expect(check.out).toContain("Total document signed");
    expect(check.out).toContain(`- ${signed.length}]`);
    const text = textIn(signed, box);
    expect(text).toContain("Digitally signed by Unit Signer");
    expect(text).toContain("Date: 2026-11-23 12:00:00 UTC");
    expect(text).toContain("Reason: Approved");
    expect(text).toContain("Location: Berlin");
    expect(inkIn(signed, box)).toBeGreaterThan(0.01);
    // Its font is embedded (as PDF/A requires), with only the glyphs it shows.
    expect(poppler("pdffonts", signed).out).toMatch(/[A-Z]{6}\+LiberationSans\s+CID TrueType\s+Identity-H\s+yes yes yes/);
    // Nothing of it outside the box: the area below is as blank as before.
    expect(inkIn(signed, { ...box, y: box.y + box.height + 5 })).toBe(0);
  });

  test("names outside Latin-1 are drawn, not replaced", async () => {
    const { signer } = await openPkcs12(makePkcs12({ commonName: "Łukasz Żółć" }), "secret");
    const signed = await signPdf(await samplePdf(), { signer, signingTime, location: "Kraków", visible: box });
    expect(textIn(signed, box)).toContain("Digitally signed by Łukasz Żółć");
    expect(textIn(signed, box)).toContain("Location: Kraków");
  });

  test("on the page asked for, and in an encrypted file (encrypt, then sign)", async () => {
    const { signer } = await openPkcs12(p12, "secret");
    const twoPages = await samplePdf(2);
    const onSecond = { ...box, page: 2 };
    const signed = await signPdf(twoPages, { signer, signingTime, visible: onSecond });
    expect(textIn(signed, onSecond)).toContain("Digitally signed by Unit Signer");
    expect(textIn(signed, box)).toBe("\f");
    const encrypted = await encryptPdf(await samplePdf(), { user: "open-me", owner: "own-me" });
    const sealed = await signPdf(encrypted, { signer, signingTime, visible: box, password: "own-me" });
    expect(poppler("pdfsig", sealed, ["-upw", "open-me"]).out).toContain("Signature is Valid.");
    expect(textIn(sealed, box, "open-me")).toContain("Digitally signed by Unit Signer");
    expect(inkIn(sealed, box, "open-me")).toBeGreaterThan(0.01);
  });

  test("a page the PDF lacks or a box past the page's edge is refused, naming the field", async () => {
    const { signer } = await openPkcs12(p12, "secret");
    const pdf = await samplePdf();
    await expect(signPdf(pdf, { signer, visible: { ...box, page: 2 } })).rejects.toThrow("/signature/visible/page) is 2, but the PDF has 1 pages");
    await expect(signPdf(pdf, { signer, visible: { ...box, x: 500 } })).rejects.toThrow("outside page 1 (612 × 792 pt)");
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
