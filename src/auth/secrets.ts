/** auth/secrets: API key secrets and session tokens — made here, stored only as sha256 (DESIGN.md 3). */
import { randomBase62 } from "../lib/ids";
import { hmacBase64url, safeEqual, sha256Hex } from "../lib/hash";

export const API_KEY_PREFIX = "rd";

/** newApiKeySecret gives `rd_<43 base62>` with the parts an ApiKey shows: `prefix` and `start` (its first 8 characters). */
export function newApiKeySecret(): { secret: string; hash: string; prefix: string; start: string } {
  const secret = `${API_KEY_PREFIX}_${randomBase62(43)}`;
  return { secret, hash: sha256Hex(secret), prefix: API_KEY_PREFIX, start: secret.slice(0, 8) };
}

/** looksLikeApiKey rejects malformed secrets before they reach the store. */
export function looksLikeApiKey(value: string): boolean {
  return /^rd_[0-9A-Za-z]{43}$/.test(value);
}

/** newSessionToken gives a random session token and the hash the store keeps. */
export function newSessionToken(): { token: string; hash: string } {
  const token = randomBase62(43);
  return { token, hash: sha256Hex(token) };
}

/** signCookieValue binds a session token to SECRET_KEY so a forged cookie is refused before any lookup. */
export function signCookieValue(secretKey: string, token: string): string {
  return `${token}.${hmacBase64url(secretKey, `session:${token}`)}`;
}

/** readCookieValue answers the token inside a signed cookie value, or null when the signature does not match. */
export function readCookieValue(secretKey: string, value: string): string | null {
  const dot = value.lastIndexOf(".");
  if (dot <= 0) return null;
  const token = value.slice(0, dot);
  return safeEqual(value.slice(dot + 1), hmacBase64url(secretKey, `session:${token}`)) ? token : null;
}
