/**
 * warnings: collects what a render page asked for and did not get (spec: renders fetch nothing but the workspace's own
 * assets), and the Tailwind classes that made no CSS, kept with the render so the caller learns that an image,
 * stylesheet or style was left out; their schema is queue/warnings.ts. docs/rendering.md "Warnings".
 */
import { MAX_WARNINGS, type ClassWarning, type RenderWarning, type ResourceWarning } from "../queue/warnings";
import { ASSET_ORIGIN } from "./assets";

const MAX_URL_CHARS = 300;

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
