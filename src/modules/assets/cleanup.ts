/** assets/cleanup: the periodic sweep of registrations never uploaded, of stale temporary upload files, and of stored
 * bytes whose deletion is due (assets' and renders' alike: store/file-deletions.ts). */
import type { Logger } from "pino";
import { sweepFileDeletions } from "../../store/file-deletions";
import { sweepAssets, sweepOrphanFiles, type AssetDeps } from "./service";

/** ASSET_SWEEP_EVERY_MS: how often the cleanup runs; expiry itself is decided by the injected clock. */
export const ASSET_SWEEP_EVERY_MS = 60_000;

/** startAssetCleanup sweeps once now — orphaned stored files, every temporary file (no upload is in flight yet),
 * expired registrations, due file deletions — then all but the orphans every `everyMs`. */
export function startAssetCleanup(deps: AssetDeps, log: Logger, everyMs = ASSET_SWEEP_EVERY_MS): { stop(): void } {
  const run = async (first: boolean) => {
    try {
      const orphanFiles = first ? await sweepOrphanFiles(deps) : 0;
      const swept = await sweepAssets(deps);
      const deletedFiles = await sweepFileDeletions(deps.store, deps.files, deps.clock);
      if (orphanFiles || swept.expiredRegistrations || swept.tempFiles || deletedFiles) log.info({ ...swept, orphanFiles, deletedFiles }, "assets cleaned up");
    } catch (err) {
      // A failed sweep is retried at the next tick; it must never take the server down.
      log.error({ err }, "asset cleanup failed");
    }
  };
  void run(true);
  const timer = setInterval(() => run(false), everyMs);
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
