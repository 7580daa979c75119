/** ids: prefixed, random identifiers and secrets (STYLE habit 5: a log line says what it is). */

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** randomBase62 gives `length` characters drawn uniformly from [0-9A-Za-z]. */
export function randomBase62(length: number): string {
  let out = "";
  // Rejection sampling keeps the distribution uniform: 248 is the largest multiple of 62 below 256.
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const b of bytes) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix = "ws" | "usr" | "key" | "aud" | "ses" | "req" | "ast" | "tpl" | "tv" | "rnd" | "bat" | "evt" | "whe" | "whd";

/** newId gives `<prefix>_<22 base62 chars>` (131 bits of randomness), a valid spec Identifier. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}

/** IDENTIFIER is the spec 2.1 Identifier pattern. */
export const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** isIdentifier tells whether a string is a spec 2.1 Identifier. */
export function isIdentifier(value: string): boolean {
  return value.length >= 1 && value.length <= 128 && IDENTIFIER.test(value);
}
