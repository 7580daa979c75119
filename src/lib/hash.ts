/** hash: digests and constant-time comparison, in one place. */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** sha256Hex gives the lowercase hex sha256 of a string or bytes. */
export function sha256Hex(input: string | Uint8Array): string {
  return createHash("sha256").update(input).digest("hex");
}

/** hmacBase64url gives HMAC-SHA256 of `message` under `key`, base64url without padding. */
export function hmacBase64url(key: string | Uint8Array, message: string): string {
  return createHmac("sha256", key).update(message).digest("base64url");
}

/** safeEqual compares two strings in time that depends only on their length. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) return false;
  return timingSafeEqual(ab, bb);
}
