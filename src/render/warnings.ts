/**
 * warnings: what a render page asked for and did not get (spec: renders fetch nothing but the workspace's own
 * assets), kept with the render so the caller learns that an image or stylesheet was left out. docs/rendering.md
 * "Warnings".
 */
import { Type, type Static } from "@sinclair/typebox";
import { literalUnion } from "../lib/literals";
import { ASSET_ORIGIN } from "./assets";

/** At most this many warnings are kept per render: the first ones, one per address and reason. */
export const MAX_WARNINGS = 20;

const MAX_URL_CHARS = 300;

export const RenderWarning = Type.Object({
  /** `blocked`: not an asset of the workspace, so never fetched; `asset_not_found`: no such uploaded asset;
   * `asset_failed`: the asset could not be read. */
  reason: literalUnion(["blocked", "asset_not_found", "asset_failed"] as const),
  /** The address asked for, without its query, fragment or credentials (an asset address without its render's scope). */
  url: Type.String(),
  /** The host asked for, when the address has one and it is not the asset origin. */
  host: Type.Optional(Type.String()),
});
export type RenderWarning = Static<typeof RenderWarning>;

/** warningFor answers the warning for `url` with the parts a caller may see: a query may hold a signature or a key. */
export function warningFor(reason: RenderWarning["reason"], url: string): RenderWarning {
  let shown: string;
  let host: string | undefined;
  try {
    const u = new URL(url);
    // An asset address is shown without the render's scope (a capability, docs/pool.md "Reset"), and without a host.
    if (u.origin === ASSET_ORIGIN) return { reason, url: `${ASSET_ORIGIN}${u.pathname.replace(/^\/~[^/]*\//, "/")}` };
    host = u.hostname || undefined;
    shown = `${u.protocol}${u.host ? `//${u.host}` : u.protocol === "file:" ? "//" : ""}${u.pathname}`;
  } catch {
    shown = url.replace(/[?#].*$/s, "");
  }
  if (shown.length > MAX_URL_CHARS) shown = `${shown.slice(0, MAX_URL_CHARS - 1)}…`;
  return host ? { reason, url: shown, host } : { reason, url: shown };
}

/** WarningList collects a render's warnings: one per address and reason, the first MAX_WARNINGS. */
export class WarningList {
  readonly items: RenderWarning[] = [];
  private readonly seen = new Set<string>();

  /** add records that `url` was not served, for `reason`. */
  add(reason: RenderWarning["reason"], url: string): void {
    if (this.items.length >= MAX_WARNINGS) return;
    const warning = warningFor(reason, url);
    const key = `${warning.reason} ${warning.url}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push(warning);
  }
}
