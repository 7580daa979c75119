/** ledger/counters: the allowance counters of spec 2.3, kept per period in `allowance_counters` so that deleting old
 * renders (RETENTION_DAYS) never lowers them. */
import type { Clock } from "../lib/clock";
import type { Reads, Tx } from "../store/store";

/** documents: real documents of a UTC month; test_renders: test renders created on a UTC day; template_conversions:
 * conversions of a PDF into a template created in a UTC month, whatever their outcome (spec 2.3). */
export type CounterName = "documents" | "test_renders" | "template_conversions";

/** monthOf answers the UTC month of a time, `YYYY-MM`: the period of `documents` and `template_conversions`. */
export function monthOf(at: Date | string): string {
  return new Date(at).toISOString().slice(0, 7);
}

/** dayOf answers the UTC day of a time, `YYYY-MM-DD`: the period of `test_renders` and of usage records. */
export function dayOf(at: Date | string): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** readCounter answers a counter's value for one period (0 when nothing was counted). */
export async function readCounter(db: Reads, workspaceId: string, counter: CounterName, period: string): Promise<number> {
  const row = await db.get<{ value: number }>(
    "SELECT value FROM allowance_counters WHERE workspace_id = $ws AND counter = $counter AND period = $period",
    { ws: workspaceId, counter, period },
  );
  return row?.value ?? 0;
}

/** addToCounter adds `delta` (negative to give back) to a counter; call it in the transaction of the change it counts. */
export function addToCounter(tx: Tx, workspaceId: string, counter: CounterName, period: string, delta: number): void {
  // Never below zero. CASE rather than SQLite's two-argument MAX (PostgreSQL's max is an aggregate only), and the
  // table's name on the stored value (PostgreSQL finds a bare `value` ambiguous with `excluded.value`).
  tx.write(
    `INSERT INTO allowance_counters (workspace_id, counter, period, value) VALUES ($ws, $counter, $period, CASE WHEN $delta > 0 THEN $delta ELSE 0 END)
     ON CONFLICT (workspace_id, counter, period) DO UPDATE SET
       value = CASE WHEN allowance_counters.value + $delta > 0 THEN allowance_counters.value + $delta ELSE 0 END`,
    { ws: workspaceId, counter, period, delta },
  );
}

/** renderCounters answers the counters a render request is decided on — this UTC month's documents and today's test
 * renders at `now` — in one read: every render request reads both (0 when nothing was counted). */
export async function renderCounters(db: Reads, workspaceId: string, now: Date): Promise<{ documentsThisMonth: number; testRendersToday: number }> {
  const rows = await db.all<{ counter: CounterName; value: number }>(
    `SELECT counter, value FROM allowance_counters
     WHERE workspace_id = $ws AND ((counter = 'documents' AND period = $month) OR (counter = 'test_renders' AND period = $day))`,
    { ws: workspaceId, month: monthOf(now), day: dayOf(now) },
  );
  const value = (counter: CounterName) => rows.find((r) => r.counter === counter)?.value ?? 0;
  return { documentsThisMonth: value("documents"), testRendersToday: value("test_renders") };
}

/** conversionsThisMonth answers the conversions created this UTC month, whatever became of them (spec 2.3). */
export async function conversionsThisMonth(store: Reads, clock: Clock, workspaceId: string): Promise<number> {
  return readCounter(store, workspaceId, "template_conversions", monthOf(clock.now()));
}
