/** assets: the addresses render pages ask for workspace assets by, and how they are read back (docs/pool.md "Interception"). */

/** ASSET_ORIGIN is the origin render pages request assets from; `.invalid` never resolves (RFC 2606), and nothing leaves anyway. */
export const ASSET_ORIGIN = "https://assets.renderd.invalid";

const SCOPE = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * assetUrl answers the URL a render page requests an asset by; the pool's route handler serves it from the job.
 * With a scope (newAssetScope, the job's assetScope) the URL is `…/~<scope>/<assetId>`: see RenderJob.assetScope.
 */
export function assetUrl(assetId: string, scope?: string): string {
  if (scope === undefined) return `${ASSET_ORIGIN}/${encodeURIComponent(assetId)}`;
  if (!SCOPE.test(scope)) throw new Error("An asset scope is 16 to 128 letters, digits, _ or -.");
  return `${ASSET_ORIGIN}/~${scope}/${encodeURIComponent(assetId)}`;
}

/** newAssetScope answers a fresh, unguessable asset scope (192 random bits) for one render. */
export function newAssetScope(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");
}

/** parseAssetUrl answers the asset id and scope an asset URL names, or null for any other URL. */
export function parseAssetUrl(url: string): { assetId: string; scope?: string } | null {
  if (!url.startsWith(`${ASSET_ORIGIN}/`)) return null;
  const rest = url.slice(ASSET_ORIGIN.length + 1);
  if (/[?#]/.test(rest)) return null;
  const scoped = /^~([^/]+)\/([^/]+)$/.exec(rest);
  if (scoped ? !SCOPE.test(scoped[1]) : rest.startsWith("~")) return null;
  const [scope, raw] = scoped ? [scoped[1], scoped[2]] : [undefined, rest];
  if (raw === "" || raw.includes("/")) return null;
  try {
    return { assetId: decodeURIComponent(raw), scope };
  } catch {
    return null;
  }
}
