/**
 * queue/queue: the render queue (spec 3.2, 8.1 (5)): add a render, claim the fair next one, end it, put it back,
 * cancel it, count it. A claim is a lease: this process holds the render until the lease runs out, and renews it while
 * it prints; a render whose lease ran out goes back to the queue for another process (once; then it fails). Ending or
 * requeueing a render needs its lease, so a render taken back is never ended twice. The SQLite implementation
 * (sqlite.ts) is today's; the PostgreSQL one (issue 15, docs/scale-out.md) keeps this interface.
 */
import type { ErrorCode } from "../errors";
import type { RenderWarning } from "./warnings";
import type { RenderStatus } from "../store/render-status";
import type { Tx } from "../store/store";

/** RenderRow is a render as stored, without its print job: what the API answers for it is built from this. */
export interface RenderRow {
  id: string;
  workspace_id: string;
  status: RenderStatus;
  test: number;
  template_id: string | null;
  template_version: number | null;
  batch_id: string | null;
  filename: string;
  metadata: string;
  output_sha256: string | null;
  pages: number | null;
  bytes: number | null;
  error_code: string | null;
  error_message: string | null;
  warnings: string | null;
  /** The result's facts beyond its PDF (JSON): an operation's name and bytes before, a render's image output. */
  details: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** RENDER_COLUMNS are RenderRow's columns: everything but the print job, which may be megabytes of HTML. */
export const RENDER_COLUMNS =
  "id, workspace_id, status, test, template_id, template_version, batch_id, filename, metadata, output_sha256, pages, bytes, error_code, error_message, warnings, details, created_at, started_at, finished_at";

/** Claim is a render the queue gave this process to print: it is `processing` until it is ended or put back. */
export interface Claim {
  renderId: string;
  workspaceId: string;
  createdAt: string;
  test: boolean;
  /** The stored print job (JSON), as the render was planned. */
  job: string;
  /** The request that made the render, stored with tracing on (tracing/tracing.ts), for the worker's spans. */
  origin: { requestId: string | null; traceparent: string | null };
}

/** NewRender is a render to queue, as the renders service planned it; `metadata` and `job` are stored JSON. */
export interface NewRender {
  id: string;
  workspaceId: string;
  test: boolean;
  source: string;
  templateId: string | null;
  templateVersion: number | null;
  batchId: string | null;
  /** The batch asked for one merged PDF of its items (batch `merge: true`). */
  batchMerge: boolean;
  filename: string;
  metadata: string;
  job: string;
  /** `operation` for a PDF operation (issue 30), run by the worker instead of printed; `render` otherwise. */
  kind?: "render" | "operation";
  /** The result's facts known when it is queued (JSON; RenderRow.details), or null. */
  details?: string | null;
  createdAt: string;
}

/** Printed is what a render that succeeded produced. */
export interface Printed {
  outputSha256: string;
  pages: number;
  bytes: number;
  warnings?: RenderWarning[];
  /** When Chromium's PDF was ready (ISO time): the timeline's "printed". */
  printedAt?: string;
}

/** Queue is the render queue behind one narrow interface; every write of a final state commits with its usage record
 * and end event (queue/lifecycle.ts). */
export interface Queue {
  /** enqueue adds a `queued` render in the transaction that charges its allowances. */
  enqueue(tx: Tx, render: NewRender): Promise<void>;
  /** leaseMs is how long a claim lasts unless renewed (RENDER_LEASE_MS); the worker renews well within it. */
  readonly leaseMs: number;
  /** recover runs before the first claim: renders left processing by a dead process go back once, then fail. */
  recover(): Promise<{ requeued: number; failed: number }>;
  /** takeBack puts back in the queue the renders of other processes whose lease ran out (once; a second time they
   * fail), and answers how many. The worker asks on its slow poll: a claim does not, so that it costs no statement. */
  takeBack(): Promise<{ requeued: number; failed: number }>;
  /** claim leases the fair next render (8.1 (5)) of a workspace that is not suspended to this process, or answers null;
   * `within` claims in that transaction (the one ending renders) instead. */
  claim(within?: Tx): Promise<Claim | null>;
  /** renew extends this process's leases of `renderIds` and answers the ids it no longer holds (stop printing those). */
  renew(renderIds: readonly string[]): Promise<string[]>;
  /** complete ends a claimed render as succeeded in `tx` and answers the row it wrote; null when it was cancelled or taken back
   * meanwhile (nothing written). */
  complete(tx: Tx, renderId: string, printed: Printed): Promise<RenderRow | null>;
  /** fail ends a claimed render as failed and answers the row it wrote; null when it was cancelled or taken back meanwhile. */
  fail(renderId: string, code: ErrorCode, message: string): Promise<RenderRow | null>;
  /** requeue puts a claimed render back (the process is stopping; not a crash); nothing when it is no longer held. */
  requeue(renderId: string): Promise<void>;
  /** cancel ends a queued or processing render as cancelled; false when it had ended already. */
  cancel(renderId: string): Promise<boolean>;
  /** inStatusAmong answers which of these renders are in one of `statuses` now (cancelled or ended by another process). */
  inStatusAmong(renderIds: readonly string[], statuses: readonly RenderStatus[]): Promise<string[]>;
  /** sweep deletes renders that ended more than `retentionDays` ago and records the deletion of the PDFs none points at any more. */
  sweep(retentionDays: number): Promise<{ renders: number; outputs: number }>;
  /** depth answers how many renders wait (`queued`) and print (`processing`). */
  depth(): Promise<{ queued: number; processing: number }>;
}
