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

export type IdPrefix = "ws" | "usr" | "key" | "aud" | "ses" | "req" | "ast" | "tpl" | "tv" | "rnd" | "bat" | "evt" | "whe" | "whd" | "crt" | "dst" | "dld" | "tcv" | "pdo";

let lastMs = 0;
let sequence = 0;

function base62(n: number, width: number): string {
  let out = "";
  for (let i = 0; i < width; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** newId gives `<prefix>_<22 base62 chars>`: 8 of wall-clock milliseconds, 3 of a sequence within the millisecond,
 * 11 random. Ids made later sort later (the alphabet is in ASCII order), so "newest first" is stable even when
 * two rows share a timestamp, as the changes of one transaction do. */
export function newId(prefix: IdPrefix): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
  } else {
    sequence += 1;
    // 62^3 ids in one millisecond: borrow the next millisecond rather than wrap around.
    if (sequence >= 62 ** 3) {
      lastMs += 1;
      sequence = 0;
    }
  }
  return `${prefix}_${base62(lastMs, 8)}${base62(sequence, 3)}${randomBase62(11)}`;
}

/** IDENTIFIER is the spec 2.1 Identifier pattern. */
export const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** isIdentifier tells whether a string is a spec 2.1 Identifier. */
export function isIdentifier(value: string): boolean {
  return value.length >= 1 && value.length <= 128 && IDENTIFIER.test(value);
}
