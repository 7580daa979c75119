/**
 * warnings: what a render page asked for and did not get (spec: renders fetch nothing but the workspace's own
 * assets), and the Tailwind classes that made no CSS, kept with the render so the caller learns that an image,
 * stylesheet or style was left out. docs/rendering.md "Warnings".
 */
import { Type, type Static } from "@sinclair/typebox";
import { literalUnion } from "../lib/literals";
import { ASSET_ORIGIN } from "./assets";

/** At most this many warnings are kept per render: the first ones, one per address and reason. */
export const MAX_WARNINGS = 20;

const MAX_URL_CHARS = 300;

/** ResourceWarning: the page asked for an address and did not get it. */
export const ResourceWarning = Type.Object(
  {
    reason: literalUnion(["blocked", "asset_not_found", "asset_failed"] as const, {
      description: "blocked: not an asset of the workspace, so never fetched; asset_not_found: no such uploaded asset; asset_failed: the asset could not be read.",
    }),
    url: Type.String({ description: "The address asked for, without its query, fragment or credentials (an asset address without its render's scope)." }),
    host: Type.Optional(Type.String({ description: "The host asked for, when the address has one and it is not the asset origin." })),
  },
  { description: "The page asked for something it did not get." },
);
export type ResourceWarning = Static<typeof ResourceWarning>;

/** ClassWarning: a Tailwind class in `tw` made no CSS (misspelt, not a Tailwind 3 utility, or refused). */
export const ClassWarning = Type.Object(
  {
    reason: Type.Literal("unknown_class", { description: "A class in `tw` is no Tailwind utility (or loads a resource) and made no CSS." }),
    className: Type.String({ description: "The class, as written." }),
    path: Type.String({ description: "The JSON pointer of the first `tw` that uses it, such as /content/children/0/tw or /document/children/2/tw." }),
  },
  { description: "A Tailwind class that took no effect." },
);
export type ClassWarning = Static<typeof ClassWarning>;

export const RenderWarning = Type.Union([ResourceWarning, ClassWarning], { description: "Something the document asked for and did not get; the render succeeded without it." });
export type RenderWarning = Static<typeof RenderWarning>;

/** warningFor answers the warning for `url` with the parts a caller may see: a query may hold a signature or a key. */
export function warningFor(reason: ResourceWarning["reason"], url: string): ResourceWarning {
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

/** WarningList collects a render page's warnings: one per address and reason, the first MAX_WARNINGS. */
export class WarningList {
  readonly items: ResourceWarning[] = [];
  private readonly seen = new Set<string>();

  /** add records that `url` was not served, for `reason`. */
  add(reason: ResourceWarning["reason"], url: string): void {
    if (this.items.length >= MAX_WARNINGS) return;
    const warning = warningFor(reason, url);
    const key = `${warning.reason} ${warning.url}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push(warning);
  }
}

/** classWarnings answers the warnings of Tailwind classes that made no CSS, the first MAX_WARNINGS. */
export function classWarnings(unknown: { className: string; path: string }[], at = ""): ClassWarning[] {
  return unknown.slice(0, MAX_WARNINGS).map(({ className, path }) => ({ reason: "unknown_class", className, path: at + path }));
}

/** allWarnings joins a job's own warnings (made when it was planned) and its page's, the first MAX_WARNINGS. */
export function allWarnings(planned: readonly RenderWarning[] | undefined, page: readonly RenderWarning[]): RenderWarning[] {
  return [...(planned ?? []), ...page].slice(0, MAX_WARNINGS);
}
