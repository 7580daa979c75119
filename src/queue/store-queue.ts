/** queue/store-queue: the render queue on the store's `renders` table, the same SQL on SQLite and PostgreSQL. Claims are
 * leased (queue.ts): on a shared store a render of a dead process comes back when its lease runs out; on SQLite one
 * serving process owns the store, so recover() takes such renders back at the next start, at once. */
import type { ErrorCode } from "../errors";
import type { Clock } from "../lib/clock";
import { inList } from "../store/sql-list";
import type { RenderStatus } from "../store/render-status";
import type { Store } from "../store/store";
import { pickNext, type Head } from "./fairness";
import { randomBase62 } from "../lib/ids";
import { claimRender, endRender, renewLeases, requeueRender, takeBackRenders, type Lease } from "./lifecycle";
import type { Claim, NewRender, Printed, Queue, RenderRow } from "./queue";
import { sweepRenders } from "./retention";

/** StoreQueue is the Queue of one renderd process on the store's `renders` table; the fair pick's memory is in the
 * store too (`queue_turns`), shared with every process on it. */
export class StoreQueue implements Queue {
  /** owner names this queue's claims in the store: a new one each start, so a restarted process holds nothing. */
  readonly owner = `prc_${randomBase62(16)}`;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    readonly leaseMs: number,
  ) {}

  enqueue(render: NewRender): void {
    if (!this.store.inTransaction) throw new Error("enqueue must run inside the transaction that charges the render");
    this.store.run(
      `INSERT INTO renders (id, workspace_id, status, test, source, template_id, template_version, batch_id, batch_merge, filename, metadata, job, details, kind, created_at)
       VALUES ($id, $ws, 'queued', $test, $source, $templateId, $version, $batchId, $merge, $filename, $metadata, $job, $details, $kind, $now)`,
      {
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
  }

  recover(): { requeued: number; failed: number } {
    // On SQLite every processing render, leased or not: the store belongs to this one process, so whatever is processing
    // at its start was left by a process that is gone, and waiting for those leases would only delay the renders. A
    // shared store's processing renders may be printing on another host: only the leases that ran out come back.
    if (this.store.engine === "sqlite") return takeBackRenders(this.store, this.clock, { all: true });
    return takeBackRenders(this.store, this.clock, { expiredBefore: this.clock.now().toISOString(), sparing: this.owner });
  }

  claim(): Claim | null {
    const { store, clock } = this;
    // A process never takes back its own claims: it knows they are printing, even when a stalled event loop let a
    // lease run out; another process does.
    takeBackRenders(store, clock, { expiredBefore: clock.now().toISOString(), sparing: this.owner });
    // Look first, so that the worker's poll of an empty queue takes no write lock (on PostgreSQL, every process's one).
    if (this.heads().length === 0) return null;
    // The heads, the turns, the pick, the claim and its turn in one transaction: writers take turns on the store, so
    // processes sharing it see each other's turns (8.1 (5)) and no render read here can be cancelled before its claim.
    // Not durable on its own: a claim lost in a power cut leaves the render queued, where the restart's recover() would
    // put it anyway, and the render's end (durable) makes the claim durable before anyone is told of it.
    return store.tx(() => {
      const turns = this.turns();
      const head = pickNext(this.heads(), turns);
      if (!head) return null;
      const claimed = claimRender(store, clock, head.renderId, this.lease());
      if (claimed === null) throw new Error(`queue: render ${head.renderId}, read as queued in this transaction, could not be claimed`);
      store.run(
        "INSERT INTO queue_turns (workspace_id, turn) VALUES ($ws, $turn) ON CONFLICT (workspace_id) DO UPDATE SET turn = excluded.turn",
        { ws: head.workspaceId, turn: Math.max(0, ...turns.values()) + 1 },
      );
      return { ...head, ...claimed };
    }, { durable: false });
  }

  renew(renderIds: readonly string[]): string[] {
    const held = new Set(renewLeases(this.store, this.owner, renderIds, this.lease().expiresAt));
    return renderIds.filter((id) => !held.has(id));
  }

  complete(renderId: string, printed: Printed): RenderRow | null {
    return this.store.tx(() => endRender(this.store, this.clock, renderId, ["processing"], { status: "succeeded", ...printed }, this.owner));
  }

  fail(renderId: string, code: ErrorCode, message: string): RenderRow | null {
    return this.store.tx(() => endRender(this.store, this.clock, renderId, ["processing"], { status: "failed", code, message }, this.owner));
  }

  requeue(renderId: string): void {
    requeueRender(this.store, renderId, this.owner);
  }

  cancel(renderId: string): boolean {
    return this.store.tx(() => endRender(this.store, this.clock, renderId, ["queued", "processing"], { status: "cancelled" })) !== null;
  }

  inStatusAmong(renderIds: readonly string[], statuses: readonly RenderStatus[]): string[] {
    if (renderIds.length === 0) return [];
    const ids = inList("id", renderIds, "r");
    const wanted = inList("status", statuses, "s");
    return this.store.all<{ id: string }>(`SELECT id FROM renders WHERE ${wanted.sql} AND ${ids.sql}`, { ...ids.params, ...wanted.params }).map((r) => r.id);
  }

  sweep(retentionDays: number): { renders: number; outputs: number } {
    return sweepRenders(this.store, this.clock, retentionDays);
  }

  depth(): { queued: number; processing: number } {
    const depth = { queued: 0, processing: 0 };
    for (const r of this.store.all<{ status: "queued" | "processing"; n: number }>("SELECT status, COUNT(*) AS n FROM renders WHERE status IN ('queued', 'processing') GROUP BY status"))
      depth[r.status] = r.n;
    return depth;
  }

  /** lease answers this process's lease of a claim made or renewed now. */
  private lease(): Lease {
    return { owner: this.owner, expiresAt: new Date(this.clock.now().getTime() + this.leaseMs).toISOString() };
  }

  /** turns answers the turn in which each workspace was last served (8.1 (5)). */
  private turns(): Map<string, number> {
    return new Map(this.store.all<{ workspace_id: string; turn: number }>("SELECT workspace_id, turn FROM queue_turns").map((r) => [r.workspace_id, r.turn]));
  }

  /** heads answers each workspace's oldest queued render; a suspended workspace renders nothing (spec 8.1 (6)). */
  private heads(): Head[] {
    return this.store
      .all<{ workspace_id: string; head: string }>(
        `SELECT r.workspace_id, MIN(r.created_at || ' ' || r.id) AS head
         FROM renders r JOIN workspaces w ON w.id = r.workspace_id
         WHERE r.status = 'queued' AND w.suspended = 0
         GROUP BY r.workspace_id`,
      )
      .map(({ workspace_id, head }) => {
        const [createdAt, renderId] = head.split(" ");
        return { workspaceId: workspace_id, renderId: renderId!, createdAt: createdAt! };
      });
  }
}
