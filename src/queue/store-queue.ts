/** queue/store-queue: the render queue on the store's `renders` table, the same SQL on SQLite and PostgreSQL. Claims are
 * leased (queue.ts): on a shared store a render of a dead process comes back when its lease runs out; on SQLite one
 * serving process owns the store, so recover() takes such renders back at the next start, at once. */
import type { ErrorCode } from "../errors";
import type { Clock } from "../lib/clock";
import { inList } from "../store/sql-list";
import type { RenderStatus } from "../store/render-status";
import type { Store, Tx } from "../store/store";
import { ANY_WAITING, FAIR_NEXT } from "./fairness";
import { randomBase62 } from "../lib/ids";
import { endRender, renewLeases, requeueRender, takeBackRenders, type Lease } from "./lifecycle";
import type { Claim, NewRender, Printed, Queue, RenderRow } from "./queue";
import { sweepRenders } from "./retention";
import { noTracing, type Tracing } from "../tracing/tracing";

/** StoreQueue is the Queue of one renderd process on the store's `renders` table; the fair pick's memory is in the
 * store too (`queue_turns`), shared with every process on it. */
export class StoreQueue implements Queue {
  /** owner names this queue's claims in the store: a new one each start, so a restarted process holds nothing. */
  readonly owner = `prc_${randomBase62(16)}`;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    readonly leaseMs: number,
    /** With tracing on, a render stores the request it is queued in (its span's traceparent), for the worker's spans. */
    private readonly tracing: Tracing = noTracing,
  ) {}

  async enqueue(tx: Tx, render: NewRender): Promise<void> {
    const origin = this.tracing.origin();
    tx.write(
      `INSERT INTO renders (id, workspace_id, status, test, source, template_id, template_version, batch_id, batch_merge, filename, metadata, job, details, kind, created_at, request_id, traceparent)
       VALUES ($id, $ws, 'queued', $test, $source, $templateId, $version, $batchId, $merge, $filename, $metadata, $job, $details, $kind, $now, $requestId, $traceparent)`,
      {
        requestId: origin?.requestId ?? null,
        traceparent: origin?.traceparent ?? null,
        id: render.id,
        ws: render.workspaceId,
        test: render.test ? 1 : 0,
        source: render.source,
        templateId: render.templateId,
        version: render.templateVersion,
        batchId: render.batchId,
        merge: render.batchMerge ? 1 : 0,
        filename: render.filename,
        metadata: render.metadata,
        job: render.job,
        details: render.details ?? null,
        kind: render.kind ?? "render",
        now: render.createdAt,
      },
    );
    tx.notify("renders");
  }

  takeBack(): Promise<{ requeued: number; failed: number }> {
    // A process never takes back its own claims: it knows they are printing, even when a stalled event loop let a
    // lease run out; another process does.
    return takeBackRenders(this.store, this.clock, { expiredBefore: this.clock.now().toISOString(), sparing: this.owner });
  }

  recover(): Promise<{ requeued: number; failed: number }> {
    // On SQLite every processing render, leased or not: the store belongs to this one process, so whatever is processing
    // at its start was left by a process that is gone, and waiting for those leases would only delay the renders. A
    // shared store's processing renders may be printing on another host: only the leases that ran out come back.
    if (this.store.engine === "sqlite") return takeBackRenders(this.store, this.clock, { all: true });
    return this.takeBack();
  }

  /**
   * claim leases the fair next render (8.1 (5)): the first of the waiting renders in fair order that no other process
   * is claiming, and records its workspace's turn. The waiting renders, the turns and the pick are one statement —
   * `UPDATE … WHERE id = (<fairness.ts's FAIR_NEXT>)` — so the pick is judged on what was committed when that statement
   * began, a render another process holds is skipped for the next in order, and one another process claimed since is no
   * longer `queued`. Claims made at the same moment may each take
   * their workspace's turn without the other's (docs/scale-out.md "Locks"). Not durable on its own: a claim lost in a
   * power cut leaves the render queued, where the restart's recover() would put it anyway, and the render's end (durable)
   * makes the claim durable first.
   */
  async claim(within?: Tx): Promise<Claim | null> {
    const { store } = this;
    if (within) return this.take(within);
    // Looked for before a transaction, on PostgreSQL without a lock: an empty queue opens none.
    if (!(await store.get(ANY_WAITING))) return null;
    return store.tx((tx) => this.take(tx), { durable: false });
  }

  /** take claims the fair next render not being claimed by another process and records its workspace's turn; null when
   * none is left. */
  private async take(tx: Tx): Promise<Claim | null> {
    const { clock } = this;
    const row = await tx.get<{ id: string; workspace_id: string; created_at: string; job: string; test: number; request_id: string | null; traceparent: string | null }>(
      `UPDATE renders SET status = 'processing', started_at = $now, lease_owner = $owner, lease_expires_at = $expires
       WHERE id = (${FAIR_NEXT})
       RETURNING id, workspace_id, created_at, job, test, request_id, traceparent`,
      { now: clock.now().toISOString(), owner: this.owner, expires: this.lease().expiresAt },
    );
    if (!row) return null;
    tx.write(
      `INSERT INTO queue_turns (workspace_id, turn) VALUES ($ws, (SELECT COALESCE(MAX(turn), 0) + 1 FROM queue_turns))
       ON CONFLICT (workspace_id) DO UPDATE SET turn = excluded.turn`,
      { ws: row.workspace_id },
    );
    return {
      renderId: row.id,
      workspaceId: row.workspace_id,
      createdAt: row.created_at,
      job: row.job,
      test: row.test === 1,
      origin: { requestId: row.request_id, traceparent: row.traceparent },
    };
  }

  async renew(renderIds: readonly string[]): Promise<string[]> {
    const held = new Set(await renewLeases(this.store, this.owner, renderIds, this.lease().expiresAt));
    return renderIds.filter((id) => !held.has(id));
  }

  complete(tx: Tx, renderId: string, printed: Printed): Promise<RenderRow | null> {
    return endRender(tx, this.clock, renderId, ["processing"], { status: "succeeded", ...printed }, this.owner);
  }

  fail(renderId: string, code: ErrorCode, message: string): Promise<RenderRow | null> {
    return this.store.tx((tx) => endRender(tx, this.clock, renderId, ["processing"], { status: "failed", code, message }, this.owner));
  }

  requeue(renderId: string): Promise<void> {
    return requeueRender(this.store, renderId, this.owner);
  }

  async cancel(renderId: string): Promise<boolean> {
    return (await this.store.tx((tx) => endRender(tx, this.clock, renderId, ["queued", "processing"], { status: "cancelled" }))) !== null;
  }

  async inStatusAmong(renderIds: readonly string[], statuses: readonly RenderStatus[]): Promise<string[]> {
    if (renderIds.length === 0) return [];
    const ids = inList("id", renderIds, "r");
    const wanted = inList("status", statuses, "s");
    return (await this.store.all<{ id: string }>(`SELECT id FROM renders WHERE ${wanted.sql} AND ${ids.sql}`, { ...ids.params, ...wanted.params })).map((r) => r.id);
  }

  sweep(retentionDays: number): Promise<{ renders: number; outputs: number }> {
    return sweepRenders(this.store, this.clock, retentionDays);
  }

  async depth(): Promise<{ queued: number; processing: number }> {
    const depth = { queued: 0, processing: 0 };
    for (const r of await this.store.all<{ status: "queued" | "processing"; n: number }>(
      "SELECT status, COUNT(*) AS n FROM renders WHERE status IN ('queued', 'processing') GROUP BY status",
    ))
      depth[r.status] = r.n;
    return depth;
  }

  /** lease answers this process's lease of a claim made or renewed now. */
  private lease(): Lease {
    return { owner: this.owner, expiresAt: new Date(this.clock.now().getTime() + this.leaseMs).toISOString() };
  }
}
