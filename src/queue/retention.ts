/** queue/retention: renders and their PDFs are kept RETENTION_DAYS after they end (their end events go with the
 * webhook history, src/webhooks/retention.ts); the daily usage record stays (spec 2.10). */
import type { Clock } from "../lib/clock";
import { sweepRenderMinutes } from "../ledger/render-minutes";
import { dropFile } from "../store/file-deletions";
import { dropPageImages } from "../store/page-images";
import type { Store } from "../store/store";

const DAY_MS = 24 * 60 * 60 * 1000;

/** sweepRenders deletes renders that ended more than `retentionDays` ago and, in the same transaction, records the
 * deletion of the PDFs no remaining render points at (store/file-deletions.ts) — an operation's further PDFs too — with
 * the page images drawn of them, and the counts of minutes no allowance reads any more; answers how many renders and
 * PDFs. */
export function sweepRenders(store: Store, clock: Clock, retentionDays: number): Promise<{ renders: number; outputs: number }> {
  const cutoff = new Date(clock.now().getTime() - retentionDays * DAY_MS).toISOString();
  return store.tx(async (tx) => {
    // An operation's render_outputs rows go with its row (ON DELETE CASCADE): their bytes are read first.
    const parts = await tx.all<{ sha256: string }>(
      "SELECT o.sha256 FROM render_outputs o JOIN renders r ON r.id = o.render_id WHERE r.finished_at IS NOT NULL AND r.finished_at < $cutoff",
      { cutoff },
    );
    const gone = await tx.all<{ output_sha256: string | null }>(
      "DELETE FROM renders WHERE finished_at IS NOT NULL AND finished_at < $cutoff RETURNING output_sha256",
      { cutoff },
    );
    const shas = new Set([...gone.flatMap((r) => (r.output_sha256 ? [r.output_sha256] : [])), ...parts.map((p) => p.sha256)]);
    await sweepRenderMinutes(tx, clock.now());
    let outputs = 0;
    for (const sha of shas)
      if (await dropFile(tx, clock, "outputs", sha)) {
        outputs += 1;
        await dropPageImages(tx, clock, sha);
      }
    return { renders: gone.length, outputs };
  });
}
