/** assets/cleanup: the periodic sweep of registrations never uploaded, of stale temporary upload files, and of stored
 * bytes whose deletion is due (assets' and renders' alike: store/file-deletions.ts). */
import type { Logger } from "pino";
import { Backoff } from "../../lib/backoff";
import { sweepFileDeletions } from "../../store/file-deletions";
import { sweepAssets, sweepOrphanFiles, type AssetDeps } from "./service";

/** ASSET_SWEEP_EVERY_MS: how often the cleanup runs; expiry itself is decided by the injected clock. */
export const ASSET_SWEEP_EVERY_MS = 60_000;

/** startAssetCleanup sweeps once now — orphaned stored files, every temporary file (no upload is in flight yet),
 * expired registrations, due file deletions — then all but the orphans every `everyMs`. */
export function startAssetCleanup(deps: AssetDeps, log: Logger, everyMs = ASSET_SWEEP_EVERY_MS): { stop(): void } {
  // A failed sweep is retried at the next tick and must never take the server down; an outage is logged once.
  const faults = new Backoff(log, "asset cleanup");
  const run = async (first: boolean) => {
    try {
      const orphanFiles = first ? await sweepOrphanFiles(deps) : 0;
      const swept = await sweepAssets(deps);
      const deletedFiles = await sweepFileDeletions(deps.store, deps.files, deps.clock);
      if (orphanFiles || swept.expiredRegistrations || swept.tempFiles || deletedFiles) log.info({ ...swept, orphanFiles, deletedFiles }, "assets cleaned up");
      faults.succeeded();
    } catch (err) {
      faults.failed(err);
    }
  };
  void run(true);
  const timer = setInterval(() => run(false), everyMs);
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
