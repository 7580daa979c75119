/**
 * queue/lifecycle: the only writes of a render's status (spec 3.2; docs/rendering.md has the diagram):
 *
 *   queued ──claim──▶ processing ──▶ succeeded | failed | cancelled
 *     │                   │
 *     ├──cancel──▶ cancelled   └──process stopped or died──▶ queued (after a crash: once; the second time failed)
 *
 * A claim carries a lease (owner, expiry): ending or requeueing a render needs its lease; a render whose process
 * died (its lease ran out, or it was found processing at start) is taken back by takeBackRenders.
 *
 * A final state is written with its usage record (2.10), the return of the month's document when a real render did
 * not produce one (2.3), its end event (6) and its deliveries made due or failed (issue 14): one transaction (STYLE habit 4).
 */
import type { ErrorCode } from "../errors";
import type { Clock } from "../lib/clock";
import type { RenderWarning } from "./warnings";
import { RENDER_COLUMNS, type Claim, type RenderRow } from "./queue";
import { inList } from "../store/sql-list";
import type { Store, Tx } from "../store/store";
import type { RenderStatus } from "../store/render-status";
import { enqueueEndEvent } from "../webhooks/events";
import { settleDeliveries } from "../destinations/deliveries";
import { recordRenderEnd } from "../ledger/usage-days";
import { addToCounter, dayOf, monthOf } from "../ledger/counters";

/** RenderEnd is a final state and what goes with it. */
export type RenderEnd =
  | { status: "succeeded"; outputSha256: string; pages: number; bytes: number; warnings?: RenderWarning[]; printedAt?: string }
  | { status: "failed"; code: ErrorCode; message: string }
  | { status: "cancelled" };

function statusList(from: readonly RenderStatus[]): string {
  return `(${from.map((s) => `'${s}'`).join(", ")})`;
}

/** endRender moves a render that is in one of `from` to its final state, in the caller's transaction, and answers the row
 * it wrote; it answers null (and writes nothing) when the render is not in `from` any more, e.g. cancelled while it was
 * printing, or, with an `owner`, when that owner no longer holds its lease (taken back: another process may be printing
 * it now). */
export async function endRender(tx: Tx, clock: Clock, renderId: string, from: readonly RenderStatus[], end: RenderEnd, owner?: string): Promise<RenderRow | null> {
  const now = clock.now().toISOString();
  const row = await tx.get<RenderRow>(
    `UPDATE renders SET status = $status, job = NULL, finished_at = $now, lease_owner = NULL, lease_expires_at = NULL,
       output_sha256 = $sha, pages = $pages, bytes = $bytes, error_code = $code, error_message = $message, warnings = $warnings,
       printed_at = $printed
     WHERE id = $id AND status IN ${statusList(from)} ${owner === undefined ? "" : "AND lease_owner = $owner"}
     RETURNING ${RENDER_COLUMNS}`,
    {
      id: renderId,
      ...(owner === undefined ? {} : { owner }),
      status: end.status,
      now,
      sha: end.status === "succeeded" ? end.outputSha256 : null,
      pages: end.status === "succeeded" ? end.pages : null,
      bytes: end.status === "succeeded" ? end.bytes : null,
      code: end.status === "failed" ? end.code : null,
      message: end.status === "failed" ? end.message : null,
      warnings: end.status === "succeeded" && end.warnings?.length ? JSON.stringify(end.warnings) : null,
      printed: end.status === "succeeded" ? (end.printedAt ?? null) : null,
    },
  );
  if (!row) return null;
  const succeeded = end.status === "succeeded";
  recordRenderEnd(tx, {
    workspaceId: row.workspace_id,
    day: dayOf(now),
    status: end.status,
    pages: succeeded ? end.pages : undefined,
    bytes: succeeded ? end.bytes : undefined,
  });
  // spec 2.3: documentsThisMonth counts real documents produced, those in progress included; one that ends without a
  // PDF gives its place back to the month it was counted in.
  if (row.test === 0 && !succeeded) addToCounter(tx, row.workspace_id, "documents", monthOf(row.created_at), -1);
  // The rest goes out together with those writes: one round trip on PostgreSQL.
  await Promise.all([
    enqueueEndEvent(tx, clock, {
      workspaceId: row.workspace_id,
      renderId,
      status: end.status,
      test: row.test === 1,
      errorCode: end.status === "failed" ? end.code : undefined,
    }),
    settleDeliveries(tx, renderId, succeeded, now),
  ]);
  return row;
}

/** Lease is who holds a claimed render — one process's owner id — and until when (ISO time), unless renewed. */
export interface Lease {
  owner: string;
  expiresAt: string;
}

/** claimRender moves a queued render to processing under `lease` and answers its stored job, whether it is a test
 * render and the request that made it, or null when it is no longer queued. */
export async function claimRender(tx: Tx, clock: Clock, renderId: string, lease: Lease): Promise<Pick<Claim, "job" | "test" | "origin"> | null> {
  const row = await tx.get<{ job: string; test: number; request_id: string | null; traceparent: string | null }>(
    `UPDATE renders SET status = 'processing', started_at = $now, lease_owner = $owner, lease_expires_at = $expires
     WHERE id = $id AND status = 'queued' RETURNING job, test, request_id, traceparent`,
    { id: renderId, now: clock.now().toISOString(), owner: lease.owner, expires: lease.expiresAt },
  );
  return row ? { job: row.job, test: row.test === 1, origin: { requestId: row.request_id, traceparent: row.traceparent } } : null;
}

/** renewLeases moves the expiry of `owner`'s claims among `renderIds` to `expiresAt` and answers the ids still this
 * owner's; a render missing from the answer is no longer held (ended, cancelled or taken back). The renewal waits for no
 * lock: a row another transaction holds is being ended (by this process's own group commit, which may wait in turn for a
 * row the renewal locked: PostgreSQL's `deadlock detected`), cancelled or taken back. Whether it is still this owner's is
 * read beside the renewal, without a lock, as committed; one it could not lock is renewed next time, or found gone. */
export async function renewLeases(store: Store, owner: string, renderIds: readonly string[], expiresAt: string): Promise<string[]> {
  if (renderIds.length === 0) return [];
  const ids = inList("id", renderIds, "r");
  const mine = `status = 'processing' AND lease_owner = $owner AND ${ids.sql}`;
  const params = { owner, ...ids.params };
  const [held] = await store.tx((tx) =>
    Promise.all([
      tx.all<{ id: string }>(`SELECT id FROM renders WHERE ${mine}`, params),
      tx.run(`UPDATE renders SET lease_expires_at = $expires WHERE id IN (SELECT id FROM renders WHERE ${mine} FOR UPDATE SKIP LOCKED)`, { ...params, expires: expiresAt }),
    ]),
  );
  return held.map((r) => r.id);
}

/** requeueRender puts a render `owner` was printing back in the queue (the process is stopping; not a crash); a render
 * this owner no longer holds is left alone. */
export async function requeueRender(store: Store, renderId: string, owner: string): Promise<void> {
  await store.tx((tx) =>
    tx.run(
      `UPDATE renders SET status = 'queued', started_at = NULL, lease_owner = NULL, lease_expires_at = NULL
       WHERE id = $id AND status = 'processing' AND lease_owner = $owner`,
      { id: renderId, owner },
    ),
  );
}

/** TakeBack chooses the processing renders to take back: all of them (at start, on a store one process owns), or those
 * whose lease ran out before `expiredBefore` (or that have none: left by a version before leases), held by another owner
 * than `sparing` (the caller knows its own are alive). */
export type TakeBack = { all: true } | { expiredBefore: string; sparing: string };

/** takeBackRenders is the one rule for renders whose process died (DESIGN.md 4): each goes back to the queue once; one
 * that already went back is failed. Runs in its own transaction; answers how many of each. */
export async function takeBackRenders(store: Store, clock: Clock, which: TakeBack): Promise<{ requeued: number; failed: number }> {
  const [sql, params] =
    "all" in which
      ? ["SELECT id, recoveries FROM renders WHERE status = 'processing'", {}]
      : [
          "SELECT id, recoveries FROM renders WHERE status = 'processing' AND (lease_expires_at IS NULL OR lease_expires_at <= $before) AND (lease_owner IS NULL OR lease_owner <> $sparing)",
          { before: which.expiredBefore, sparing: which.sparing },
        ];
  // Every claim asks: look first, so that the usual answer (nothing to take back) opens no transaction.
  if ((await store.all(sql, params)).length === 0) return { requeued: 0, failed: 0 };
  return store.tx(async (tx) => {
    // Locked, and those another process took back meanwhile skipped: each lost render is taken back once.
    const lost = await tx.all<{ id: string; recoveries: number }>(`${sql} FOR UPDATE SKIP LOCKED`, params);
    const again = lost.filter((r) => r.recoveries === 0);
    await Promise.all(
      again.map(({ id }) =>
        tx.run(
          "UPDATE renders SET status = 'queued', started_at = NULL, lease_owner = NULL, lease_expires_at = NULL, recoveries = recoveries + 1 WHERE id = $id",
          { id },
        ),
      ),
    );
    for (const { id } of lost.filter((r) => r.recoveries > 0))
      await endRender(tx, clock, id, ["processing"], {
        status: "failed",
        code: "RENDER_FAILED",
        message: "The render was interrupted twice by the service stopping unexpectedly.",
      });
    if (again.length > 0) tx.notify("renders");
    return { requeued: again.length, failed: lost.length - again.length };
  });
}
