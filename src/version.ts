/** version: the release of this build and the commit it was built from — `renderd --version`, /internal/state, the TUI. */
import pkg from "../package.json";

// scripts/build.ts defines RENDERD_COMMIT when it compiles the binary; a run from source has none.
declare const RENDERD_COMMIT: string | undefined;

/** VERSION is the package version (spec 9.2 keeps the API description's own version apart). */
export const VERSION: string = pkg.version;

/** versionLine answers `0.0.0 (commit 1a2b3c4d5e6f)` for a built binary, or `0.0.0 (dev)` from a source run. */
export function versionLine(): string {
  const commit = typeof RENDERD_COMMIT === "string" ? RENDERD_COMMIT : null;
  return `${VERSION} (${commit ? `commit ${commit}` : "dev"})`;
}
