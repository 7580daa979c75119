/** sign: Standard Webhooks signatures (spec 6.4), made for deliveries and checked by `renderd webhooks verify`. */
import { createHmac, randomBytes } from "node:crypto";
import { safeEqual } from "../lib/hash";

const SECRET_FORM = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** spec 6.4 (3) and 8.4: a receiver rejects a timestamp more than five minutes from its clock. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

/** newSigningSecret makes an endpoint secret: `whsec_` and the base64 of 32 random bytes (one HMAC-SHA256 block key). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

function secretKey(secret: string): Buffer {
  const match = SECRET_FORM.exec(secret);
  if (!match) throw new Error("A signing secret has the form whsec_<base64>.");
  // Standard Webhooks: the HMAC key is the decoded bytes after the prefix, not the text itself.
  return Buffer.from(match[1]!, "base64");
}

/** sign gives `v1,<base64>`: HMAC-SHA256 under the secret over `<msgId>.<timestampSeconds>.<body>`. */
export function sign(secret: string, msgId: string, timestampSeconds: number, body: string | Uint8Array): string {
  const mac = createHmac("sha256", secretKey(secret)).update(`${msgId}.${timestampSeconds}.`).update(body);
  return `v1,${mac.digest("base64")}`;
}

/** signatureHeader gives the `webhook-signature` value: one signature per active secret, space-separated (spec 6.3, 6.4 (4)). */
export function signatureHeader(
  secrets: readonly string[],
  msgId: string,
  timestampSeconds: number,
  body: string | Uint8Array,
): string {
  return secrets.map((secret) => sign(secret, msgId, timestampSeconds, body)).join(" ");
}

/** What a receiver got: the three `webhook-*` headers as sent, and the raw body. */
export interface SignedRequest {
  msgId: string;
  timestamp: string;
  signature: string;
  body: string | Uint8Array;
}

export type Verification = { ok: true } | { ok: false; reason: string };

/** verify checks a request as a receiver must (spec 6.4 (2), (3)): a fresh timestamp and a `v1` signature from one of the secrets. */
export function verify(secrets: readonly string[], request: SignedRequest, now: Date): Verification {
  // The CLI passes secrets typed by a person: a malformed one is an answer, not a crash.
  if (secrets.length === 0 || !secrets.every((secret) => SECRET_FORM.test(secret))) {
    return { ok: false, reason: "A signing secret has the form whsec_<base64>." };
  }
  if (!/^\d{1,15}$/.test(request.timestamp)) {
    return { ok: false, reason: "The webhook-timestamp header is not a Unix time in seconds." };
  }
  const timestamp = Number(request.timestamp);
  // spec 6.4 (3): earlier or later by more than five minutes; exactly five minutes still passes.
  if (Math.abs(Math.floor(now.getTime() / 1000) - timestamp) > TIMESTAMP_TOLERANCE_SECONDS) {
    return { ok: false, reason: "The webhook-timestamp is more than 5 minutes from now." };
  }
  const offered = request.signature.split(" ").filter((s) => s.startsWith("v1,"));
  for (const secret of secrets) {
    const expected = sign(secret, request.msgId, timestamp, request.body);
    if (offered.some((candidate) => safeEqual(candidate, expected))) return { ok: true };
  }
  return { ok: false, reason: "No signature matches the body and the secret." };
}
