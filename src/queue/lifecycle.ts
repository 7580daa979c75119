/**
 * queue/lifecycle: the only writes of a render's status (spec 3.2; docs/rendering.md has the diagram):
 *
 *   queued ──claim──▶ processing ──▶ succeeded | failed | cancelled
 *     │                   │
 *     ├──cancel──▶ cancelled   └──process stopped or died──▶ queued (after a crash: once; the second time failed)
 *
 * A final state is written with its usage record (2.10), the return of the month's document when a real render did
 * not produce one (2.3), its end event (6) and its deliveries made due or failed (issue 14): one transaction (STYLE habit 4).
 */
import type { ErrorCode } from "../errors";
import type { Clock } from "../lib/clock";
import type { RenderWarning } from "../render/warnings";
import type { Store } from "../store/open";
import type { RenderStatus } from "../store/render-status";
import { enqueueEndEvent } from "../webhooks/events";
import { settleDeliveries } from "../destinations/deliveries";
import { recordRenderEnd } from "../ledger/usage-days";
import { addToCounter, dayOf, monthOf } from "../ledger/counters";

/** RenderEnd is a final state and what goes with it. */
export type RenderEnd =
  | { status: "succeeded"; outputSha256: string; pages: number; bytes: number; warnings?: RenderWarning[] }
  | { status: "failed"; code: ErrorCode; message: string }
  | { status: "cancelled" };

function statusList(from: readonly RenderStatus[]): string {
  return `(${from.map((s) => `'${s}'`).join(", ")})`;
}

/** endRender moves a render that is in one of `from` to its final state, in the caller's transaction; it answers false
 * (and writes nothing) when the render is not in `from` any more, e.g. cancelled while it was printing. */
export function endRender(store: Store, clock: Clock, renderId: string, from: readonly RenderStatus[], end: RenderEnd): boolean {
  if (!store.db.inTransaction) throw new Error("endRender must run inside a transaction");
  const now = clock.now().toISOString();
  const row = store.get<{ workspace_id: string; test: number; created_at: string }>(
    `UPDATE renders SET status = $status, job = NULL, finished_at = $now,
       output_sha256 = $sha, pages = $pages, bytes = $bytes, error_code = $code, error_message = $message, warnings = $warnings
     WHERE id = $id AND status IN ${statusList(from)}
     RETURNING workspace_id, test, created_at`,
    {
      id: renderId,
      status: end.status,
      now,
      sha: end.status === "succeeded" ? end.outputSha256 : null,
      pages: end.status === "succeeded" ? end.pages : null,
      bytes: end.status === "succeeded" ? end.bytes : null,
      code: end.status === "failed" ? end.code : null,
      message: end.status === "failed" ? end.message : null,
      warnings: end.status === "succeeded" && end.warnings?.length ? JSON.stringify(end.warnings) : null,
    },
  );
  if (!row) return false;
  const succeeded = end.status === "succeeded";
  recordRenderEnd(store, {
    workspaceId: row.workspace_id,
    day: dayOf(now),
    status: end.status,
    pages: succeeded ? end.pages : undefined,
    bytes: succeeded ? end.bytes : undefined,
  });
  // spec 2.3: documentsThisMonth counts real documents produced, those in progress included; one that ends without a
  // PDF gives its place back to the month it was counted in.
  if (row.test === 0 && !succeeded) addToCounter(store, row.workspace_id, "documents", monthOf(row.created_at), -1);
  enqueueEndEvent(store, clock, {
    workspaceId: row.workspace_id,
    renderId,
    status: end.status,
    test: row.test === 1,
    errorCode: end.status === "failed" ? end.code : undefined,
  });
  settleDeliveries(store, renderId, succeeded, now);
  return true;
}

/** claimRender moves a queued render to processing and answers its stored job, or null when it is no longer queued. */
export function claimRender(store: Store, clock: Clock, renderId: string): string | null {
  const row = store.get<{ job: string }>(
    "UPDATE renders SET status = 'processing', started_at = $now WHERE id = $id AND status = 'queued' RETURNING job",
    { id: renderId, now: clock.now().toISOString() },
  );
  return row?.job ?? null;
}

/** requeueRender puts a render this process was printing back in the queue (the process is stopping; not a crash). */
export function requeueRender(store: Store, renderId: string): void {
  store.run("UPDATE renders SET status = 'queued', started_at = NULL WHERE id = $id AND status = 'processing'", { id: renderId });
}

/** recoverRenders runs at start, before any render is claimed: renders left `processing` by a process that died are
 * queued again once; those that already were are failed (DESIGN.md 4). Answers how many of each. */
export function recoverRenders(store: Store, clock: Clock): { requeued: number; failed: number } {
  return store.tx(() => {
    const requeued = store.run("UPDATE renders SET status = 'queued', started_at = NULL, recoveries = recoveries + 1 WHERE status = 'processing' AND recoveries = 0");
    const lost = store.all<{ id: string }>("SELECT id FROM renders WHERE status = 'processing'");
    for (const { id } of lost)
      endRender(store, clock, id, ["processing"], {
        status: "failed",
        code: "RENDER_FAILED",
        message: "The render was interrupted twice by the service stopping unexpectedly.",
      });
    return { requeued, failed: lost.length };
  });
}
