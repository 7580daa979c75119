/** secret-box: endpoint signing secrets at rest — AES-256-GCM under a key derived from SECRET_KEY (DESIGN.md 5). */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;
// HKDF gives this use its own key, so SECRET_KEY's other uses (sessions, addresses) never share key material with it.
const SALT = "renderd";
const INFO = "renderd webhook secrets v1";

const keys = new Map<string, Buffer>();

function keyOf(secretKey: string): Buffer {
  let key = keys.get(secretKey);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", secretKey, SALT, INFO, 32));
    keys.set(secretKey, key);
  }
  return key;
}

/** encryptSecret seals a signing secret for the row of `endpointId`: base64 of iv | tag | ciphertext. */
export function encryptSecret(secretKey: string, endpointId: string, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyOf(secretKey), iv);
  // The endpoint id is authenticated data: a ciphertext copied onto another endpoint's row does not open.
  cipher.setAAD(Buffer.from(endpointId));
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64");
}

/** decryptSecret opens what encryptSecret sealed, or answers null (another SECRET_KEY, another row, a damaged value). */
export function decryptSecret(secretKey: string, endpointId: string, sealed: string): string | null {
  try {
    const bytes = Buffer.from(sealed, "base64");
    if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
    const decipher = createDecipheriv("aes-256-gcm", keyOf(secretKey), bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(endpointId));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
