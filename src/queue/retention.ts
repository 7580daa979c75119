/** queue/retention: renders and their PDFs are kept RETENTION_DAYS after they end (their end events go with the
 * webhook history, src/webhooks/retention.ts); the daily usage record stays (spec 2.10). */
import type { Clock } from "../lib/clock";
import type { FileStore } from "../store/files";
import type { Store } from "../store/store";

const DAY_MS = 24 * 60 * 60 * 1000;

/** sweepRenders deletes renders that ended more than `retentionDays` ago and the PDFs no remaining render points at. */
export async function sweepRenders(store: Store, files: FileStore, clock: Clock, retentionDays: number): Promise<{ renders: number; outputs: number }> {
  const cutoff = new Date(clock.now().getTime() - retentionDays * DAY_MS).toISOString();
  const outputs = store.tx(() => {
    const gone = store.all<{ output_sha256: string | null }>(
      "DELETE FROM renders WHERE finished_at IS NOT NULL AND finished_at < $cutoff RETURNING output_sha256",
      { cutoff },
    );
    const shas = new Set(gone.flatMap((r) => (r.output_sha256 ? [r.output_sha256] : [])));
    return { count: gone.length, unused: [...shas].filter((sha) => !store.get("SELECT 1 FROM renders WHERE output_sha256 = $sha", { sha })) };
  });
  // After the commit: a crash in between leaves a file no row names, never a row without its file.
  for (const sha of outputs.unused) await files.delete("outputs", sha);
  return { renders: outputs.count, outputs: outputs.unused.length };
}
