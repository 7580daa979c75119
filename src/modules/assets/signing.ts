/** assets/signing: signed addresses — an asset's upload and download addresses and a render's result address — the
 * id and an expiry, signed with SECRET_KEY. The token is the only credential such an address carries (no key, no
 * cookie), so it names its purpose: an upload token does not download, and the other way round. */
import { ApiError } from "../../errors";
import { hmacBase64url, safeEqual } from "../../lib/hash";

export type AddressPurpose = "upload" | "download" | "result";

/** UPLOAD_ADDRESS_MS: an upload address lives 15 minutes; the registration expires with it. */
export const UPLOAD_ADDRESS_MS = 15 * 60_000;
/** DOWNLOAD_ADDRESS_MS: a download address lives 1 hour (long enough to show a page that embeds it). */
export const DOWNLOAD_ADDRESS_MS = 60 * 60_000;

const PATHS: Record<AddressPurpose, string> = { upload: "/uploads/", download: "/downloads/", result: "/results/" };
const TOKEN = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

function signature(secretKey: string, purpose: AddressPurpose, assetId: string, expiresMs: number): string {
  return hmacBase64url(secretKey, `asset-${purpose}:${assetId}:${expiresMs}`);
}

/** signToken gives `<expiry in ms>.<HMAC-SHA256 of purpose, asset id and expiry>`. */
export function signToken(secretKey: string, purpose: AddressPurpose, assetId: string, expiresAt: Date): string {
  const ms = expiresAt.getTime();
  return `${ms}.${signature(secretKey, purpose, assetId, ms)}`;
}

/** verifyToken tells whether a token was signed by us for this purpose and asset, and whether it is still valid at `now`.
 * The signature is checked first, so a forged expiry reads as "invalid", never as "expired". */
export function verifyToken(secretKey: string, purpose: AddressPurpose, assetId: string, token: unknown, now: Date): "valid" | "expired" | "invalid" {
  if (typeof token !== "string") return "invalid";
  const m = TOKEN.exec(token);
  if (!m) return "invalid";
  const ms = Number(m[1]);
  if (!safeEqual(m[2]!, signature(secretKey, purpose, assetId, ms))) return "invalid";
  return ms > now.getTime() ? "valid" : "expired";
}

/** checkAddress throws 403 FORBIDDEN unless `token` is a valid, unexpired token of this purpose and id. */
export function checkAddress(secretKey: string, purpose: AddressPurpose, id: string, token: unknown, now: Date): void {
  const verdict = verifyToken(secretKey, purpose, id, token, now);
  if (verdict === "expired") throw new ApiError("FORBIDDEN", `The ${purpose} address has expired.`);
  if (verdict === "invalid") throw new ApiError("FORBIDDEN", `The ${purpose} address is not valid.`);
}

/** addressUrl gives the absolute address on PUBLIC_URL: `<PUBLIC_URL>/uploads/<id>?token=…`, `/downloads/…` or `/results/…`. */
export function addressUrl(publicUrl: string, purpose: AddressPurpose, assetId: string, token: string): string {
  return `${publicUrl}${PATHS[purpose]}${encodeURIComponent(assetId)}?token=${token}`;
}
