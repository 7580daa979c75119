/** pkcs12: opens a PKCS#12 (.p12/.pfx) file into a signer and the facts of its certificate (issue 13). */
import { X509Certificate } from "node:crypto";
import { P12Signer } from "@libpdf/core";

/** The facts of a signing certificate answered by the API; never the key. */
export interface CertificateFacts {
  subject: string;
  issuer: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  sha256Fingerprint: string;
}

/** Why a PKCS#12 file cannot sign; `field` names the request field to fix. */
export class Pkcs12Error extends Error {
  constructor(
    message: string,
    readonly field: "pkcs12" | "password",
  ) {
    super(message);
  }
}

/** OpenedPkcs12 is a ready signer with its certificate's facts. */
export interface OpenedPkcs12 {
  signer: P12Signer;
  facts: CertificateFacts;
}

// @libpdf/core says what went wrong only in its message; these map it to the field the caller must fix.
function reasonOf(message: string): Pkcs12Error {
  if (/integrity|mac|decrypt/i.test(message)) return new Pkcs12Error("The password does not open this PKCS#12 file; send the password it was exported with.", "password");
  if (/no private key/i.test(message)) return new Pkcs12Error("The PKCS#12 file holds no private key; export it with its key (openssl pkcs12 -export -inkey …).", "pkcs12");
  if (/unsupported key/i.test(message)) return new Pkcs12Error("The key type is not supported; use an RSA or ECDSA (P-256/P-384/P-521) key.", "pkcs12");
  return new Pkcs12Error("The file is not a readable PKCS#12 (.p12/.pfx) file; send the binary file base64-encoded.", "pkcs12");
}

/** openPkcs12 opens the file with its password, or throws a Pkcs12Error saying why it cannot sign. */
export async function openPkcs12(bytes: Uint8Array, password: string): Promise<OpenedPkcs12> {
  let signer: P12Signer;
  try {
    signer = await P12Signer.create(bytes, password);
  } catch (e) {
    throw reasonOf(e instanceof Error ? e.message : String(e));
  }
  const cert = new X509Certificate(signer.certificate);
  return {
    signer,
    facts: {
      subject: cert.subject.replaceAll("\n", ", "),
      issuer: cert.issuer.replaceAll("\n", ", "),
      serialNumber: cert.serialNumber.toLowerCase(),
      notBefore: new Date(cert.validFrom),
      notAfter: new Date(cert.validTo),
      sha256Fingerprint: cert.fingerprint256.replaceAll(":", "").toLowerCase(),
    },
  };
}

/** validityProblem tells why the certificate cannot sign at `now` (expired, not yet valid), or null. */
export function validityProblem(facts: CertificateFacts, now: Date): string | null {
  if (now.getTime() > facts.notAfter.getTime()) return `The certificate expired on ${facts.notAfter.toISOString()}; upload a renewed one.`;
  if (now.getTime() < facts.notBefore.getTime()) return `The certificate is not valid before ${facts.notBefore.toISOString()}.`;
  return null;
}
