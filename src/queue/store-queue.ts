/** queue/store-queue: the render queue on the store's `renders` table, the same SQL on SQLite and PostgreSQL. Claims are
 * leased (queue.ts): on a shared store a render of a dead process comes back when its lease runs out; on SQLite one
 * serving process owns the store, so recover() takes such renders back at the next start, at once. */
import type { ErrorCode } from "../errors";
import type { Clock } from "../lib/clock";
import { inList } from "../store/sql-list";
import type { RenderStatus } from "../store/render-status";
import type { Reads, Store, Tx } from "../store/store";
import { fairOrder, type Head } from "./fairness";
import { randomBase62 } from "../lib/ids";
import { endRender, renewLeases, requeueRender, takeBackRenders, type Lease } from "./lifecycle";
import type { Claim, NewRender, Printed, Queue, RenderRow } from "./queue";
import { sweepRenders } from "./retention";
import { noTracing, type Tracing } from "../tracing/tracing";

// The renders a claim tries, best first: each workspace's first PLACES, so that processes claiming at once for one busy
// workspace take its first, second… renders side by side instead of all but one finding its first taken; and at most
// CANDIDATES in all, more than the processes that may claim at once.
const PLACES = 4;
const CANDIDATES = 16;

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
   * claim leases the fair next render (8.1 (5)). The waiting renders and the turns are read in one statement, so they
   * are one moment's — but a moment before the claim, and other processes claim meanwhile: a workspace served since has
   * a newer turn than the read shows. So the claim first takes among each workspace's first render as read, in fair
   * order, one whose workspace still has the turn read: a workspace not served since, and those keep their order. Only when every one of them
   * has been claimed since, or is being claimed, does it read the heads again, inside its transaction, and take the first
   * it can of those, a workspace's second only when every first is being claimed by another process — so every
   * workspace's first waiting render is claimed no later than any workspace's second, and a workspace served twice in a
   * row while another waited is one whose claims were made at the same moment (docs/scale-out.md "Locks"). Each take is
   * one `UPDATE … FOR UPDATE SKIP LOCKED` and the turn it records, in one short transaction. Not durable on its own: a
   * claim lost in a power cut leaves the render queued, where the restart's recover() would put it anyway, and the
   * render's end (durable) makes the claim durable first.
   */
  async claim(within?: Tx): Promise<Claim | null> {
    const { store } = this;
    // Read before the transaction, on PostgreSQL without a lock: an empty queue opens none.
    const heads = fairOrder(await this.heads(within ?? store));
    if (heads.length === 0) return null;
    const take = async (tx: Tx) => (await this.take(tx, heads.filter((h) => h.place === 1))) ?? this.take(tx, fairOrder(await this.heads(tx)));
    return within ? take(within) : store.tx(take, { durable: false });
  }

  /** take claims the first of `candidates` (in fair order, the first CANDIDATES of them) still queued and not being
   * claimed by another process, and records its workspace's turn; null when none is left. */
  private async take(tx: Tx, candidates: Head[]): Promise<Claim | null> {
    const { clock } = this;
    const heads = candidates.slice(0, CANDIDATES);
    if (heads.length === 0) return null;
    const ids = inList("id", heads.map((h) => h.renderId), "c");
    const rank = `CASE id ${heads.map((_, i) => `WHEN $c${i} THEN ${i}`).join(" ")} END`;
    // A candidate still queued does not prove its workspace unserved since the read: a render of the same workspace
    // created earlier but committed later (another request, another process) may have been its first and been claimed.
    // The workspace's turn, unchanged since the read, does.
    const turnAsRead = `CASE id ${heads.map((_, i) => `WHEN $c${i} THEN $t${i}`).join(" ")} END`;
    const turns = Object.fromEntries(heads.map((h, i) => [`t${i}`, h.turn]));
    const row = await tx.get<{ id: string; job: string; test: number; request_id: string | null; traceparent: string | null }>(
      `UPDATE renders SET status = 'processing', started_at = $now, lease_owner = $owner, lease_expires_at = $expires
       WHERE id = (SELECT id FROM renders r WHERE ${ids.sql} AND status = 'queued'
                     AND COALESCE((SELECT turn FROM queue_turns t WHERE t.workspace_id = r.workspace_id), -1) = ${turnAsRead}
                   ORDER BY ${rank} LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id, job, test, request_id, traceparent`,
      { ...ids.params, ...turns, now: clock.now().toISOString(), owner: this.owner, expires: this.lease().expiresAt },
    );
    if (!row) return null;
    const head = heads.find((h) => h.renderId === row.id)!;
    tx.write(
      `INSERT INTO queue_turns (workspace_id, turn) VALUES ($ws, (SELECT COALESCE(MAX(turn), 0) + 1 FROM queue_turns))
       ON CONFLICT (workspace_id) DO UPDATE SET turn = excluded.turn`,
      { ws: head.workspaceId },
    );
    return {
      renderId: row.id,
      workspaceId: head.workspaceId,
      createdAt: head.createdAt,
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

  /** heads answers each workspace's first PLACES queued renders with the turn the workspace was last served in (8.1 (5)),
   * in one statement; a suspended workspace renders nothing (spec 8.1 (6)). */
  private async heads(db: Reads): Promise<Head[]> {
    const rows = await db.all<{ workspace_id: string; id: string; created_at: string; place: number; turn: number | null }>(
      `SELECT q.workspace_id, q.id, q.created_at, q.place, t.turn FROM (
         SELECT r.workspace_id, r.id, r.created_at, ROW_NUMBER() OVER (PARTITION BY r.workspace_id ORDER BY r.created_at, r.id) AS place
         FROM renders r JOIN workspaces w ON w.id = r.workspace_id
         WHERE r.status = 'queued' AND w.suspended = 0
       ) q LEFT JOIN queue_turns t ON t.workspace_id = q.workspace_id
       WHERE q.place <= $places`,
      { places: PLACES },
    );
    return rows.map((r) => ({ workspaceId: r.workspace_id, renderId: r.id, createdAt: r.created_at, place: r.place, turn: r.turn ?? -1 }));
  }
}
