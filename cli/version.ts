/** cli/version: what `renderd --version` prints — the package version and the commit the binary was built from. */
import pkg from "../package.json";

// scripts/build.ts defines RENDERD_COMMIT when it compiles the binary; a run from source has none.
declare const RENDERD_COMMIT: string | undefined;

/** versionLine answers `0.0.0 (commit 1a2b3c4d5e6f)` for a built binary, or `0.0.0 (dev)` from a source run. */
export function versionLine(): string {
  const commit = typeof RENDERD_COMMIT === "string" ? RENDERD_COMMIT : null;
  return `${pkg.version} (${commit ? `commit ${commit}` : "dev"})`;
}
