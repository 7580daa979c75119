/** queue/sqlite: the render queue on the `renders` table of this process's SQLite store. One process owns the store,
 * so a claim lasts until the render ends, is put back, or the process dies (then recover() at the next start). */
import type { ErrorCode } from "../errors";
import type { Clock } from "../lib/clock";
import type { FileStore } from "../store/files";
import type { Store } from "../store/open";
import { pickNext, type Head } from "./fairness";
import { claimRender, endRender, recoverRenders, requeueRender } from "./lifecycle";
import type { Claim, NewRender, Printed, Queue } from "./queue";
import { sweepRenders } from "./retention";

/** SqliteQueue is the Queue of one renderd process; it remembers which workspace it served when, for the fair pick. */
export class SqliteQueue implements Queue {
  private readonly lastServed = new Map<string, number>();
  private turn = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly files: FileStore,
  ) {}

  enqueue(render: NewRender): void {
    if (!this.store.db.inTransaction) throw new Error("enqueue must run inside the transaction that charges the render");
    this.store.run(
      `INSERT INTO renders (id, workspace_id, status, test, source, template_id, template_version, batch_id, batch_merge, filename, metadata, job, created_at)
       VALUES ($id, $ws, 'queued', $test, $source, $templateId, $version, $batchId, $merge, $filename, $metadata, $job, $now)`,
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
        now: render.createdAt,
      },
    );
  }

  recover(): { requeued: number; failed: number } {
    return recoverRenders(this.store, this.clock);
  }

  claim(): Claim | null {
    const { store, clock } = this;
    for (;;) {
      const head = pickNext(this.heads(), this.lastServed);
      if (!head) return null;
      const job = store.tx(() => claimRender(store, clock, head.renderId));
      // Cancelled between the read and the claim: look again.
      if (job === null) continue;
      this.lastServed.set(head.workspaceId, ++this.turn);
      const test = store.get<{ test: number }>("SELECT test FROM renders WHERE id = $id", { id: head.renderId })?.test === 1;
      return { ...head, test, job };
    }
  }

  complete(renderId: string, printed: Printed): boolean {
    return this.store.tx(() => endRender(this.store, this.clock, renderId, ["processing"], { status: "succeeded", ...printed }));
  }

  fail(renderId: string, code: ErrorCode, message: string): boolean {
    return this.store.tx(() => endRender(this.store, this.clock, renderId, ["processing"], { status: "failed", code, message }));
  }

  requeue(renderId: string): void {
    requeueRender(this.store, renderId);
  }

  cancel(renderId: string): boolean {
    return this.store.tx(() => endRender(this.store, this.clock, renderId, ["queued", "processing"], { status: "cancelled" }));
  }

  cancelledAmong(renderIds: readonly string[]): string[] {
    if (renderIds.length === 0) return [];
    return this.store
      .all<{ id: string }>(
        `SELECT id FROM renders WHERE status = 'cancelled' AND id IN (${renderIds.map((_, i) => `$r${i}`).join(", ")})`,
        Object.fromEntries(renderIds.map((id, i) => [`r${i}`, id])),
      )
      .map((r) => r.id);
  }

  outputInUse(sha256: string): boolean {
    return this.store.get("SELECT 1 FROM renders WHERE output_sha256 = $sha", { sha: sha256 }) !== null;
  }

  sweep(retentionDays: number): { renders: number; outputs: number } {
    return sweepRenders(this.store, this.files, this.clock, retentionDays);
  }

  depth(): { queued: number; processing: number } {
    const depth = { queued: 0, processing: 0 };
    for (const r of this.store.all<{ status: "queued" | "processing"; n: number }>("SELECT status, COUNT(*) AS n FROM renders WHERE status IN ('queued', 'processing') GROUP BY status"))
      depth[r.status] = r.n;
    return depth;
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
