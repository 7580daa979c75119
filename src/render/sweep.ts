/** sweep: the worker's hourly housekeeping (and its first, at start) — the PDFs left in the output spool written to the
 * file store, old renders and expired idempotency keys deleted. Each part logs its own failure and the next sweep
 * tries again: none of it is a render's. */
import type { Logger } from "pino";
import { sweepIdempotencyKeys } from "../http/idempotency";
import type { Clock } from "../lib/clock";
import type { Queue } from "../queue/queue";
import type { SpooledFiles } from "../store/output-spool";
import type { Store } from "../store/store";

export interface SweepDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  files: SpooledFiles;
  queue: Queue;
  retentionDays: number;
}

/** sweep deletes old renders and expired idempotency keys, and writes to the file store the PDFs spooled longer ago
 * than `spilledAfterMs` (their process stopped before it wrote them, or the write failed). */
export async function sweep(deps: SweepDeps, spilledAfterMs: number): Promise<void> {
  const { store, clock, log, files, queue, retentionDays } = deps;
  try {
    const spilled = await files.spillLate(spilledAfterMs);
    if (spilled) log.info({ spilled }, "spooled PDFs written to the file store");
  } catch (e) {
    log.error({ err: e }, "writing spooled PDFs to the file store failed: they are served from the store, and the next sweep tries again");
  }
  try {
    const swept = await queue.sweep(retentionDays);
    if (swept.renders) log.info(swept, "old renders deleted");
    const keys = await sweepIdempotencyKeys({ store, clock });
    if (keys) log.info({ idempotencyKeys: keys }, "expired idempotency keys deleted");
  } catch (e) {
    log.error({ err: e }, "render retention sweep failed");
  }
}
