/** ledger/usage-days: the daily usage record of spec 2.10 — one row per workspace and UTC day, added to as renders end. */
import type { Tx } from "../store/store";
import type { FinalStatus } from "../store/render-status";
import { dayOf } from "./counters";

const DAY_FORM = /^\d{4}-\d{2}-\d{2}$/;

/** dayMs answers a day's UTC midnight in ms, or null when the text is not a real calendar day ("2026-02-30" rolls over,
 * so the round trip catches it; parsing the ISO form rather than Date.UTC keeps years 0000..0099 literal). */
export function dayMs(value: string): number | null {
  if (!DAY_FORM.test(value)) return null;
  const ms = Date.parse(`${value}T00:00:00.000Z`);
  return Number.isNaN(ms) || dayOf(new Date(ms)) !== value ? null : ms;
}

/** UsageEnd is one render reaching its final state, as the usage record counts it. */
export interface UsageEnd {
  workspaceId: string;
  day: string;
  status: FinalStatus;
  pages?: number;
  bytes?: number;
}

function count(value: number | undefined, what: string): number {
  if (value === undefined) return 0;
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`recordRenderEnd: ${what} must be a whole number >= 0 (got ${value})`);
  return value;
}

/** recordRenderEnd adds one finished render to its workspace's usage record of `day` (spec 2.10); call it inside the transaction that writes the render's final state. */
export function recordRenderEnd(tx: Tx, end: UsageEnd): void {
  // STYLE habit 4: a render's final state and its usage counters commit together, so a crash never counts one twice or not at all.
  if (dayMs(end.day) === null) throw new Error(`recordRenderEnd: day must be a calendar day YYYY-MM-DD (got ${JSON.stringify(end.day)})`);
  // spec 2.10: pages and bytes are those of the PDFs of succeeded renders only.
  const succeeded = end.status === "succeeded";
  // The stored values carry the table's name: PostgreSQL finds a bare column ambiguous with `excluded`'s.
  tx.write(
    `INSERT INTO usage_days (workspace_id, day, renders_succeeded, renders_failed, renders_cancelled, pages, output_bytes)
     VALUES ($ws, $day, $succeeded, $failed, $cancelled, $pages, $bytes)
     ON CONFLICT (workspace_id, day) DO UPDATE SET
       renders_succeeded = usage_days.renders_succeeded + excluded.renders_succeeded,
       renders_failed = usage_days.renders_failed + excluded.renders_failed,
       renders_cancelled = usage_days.renders_cancelled + excluded.renders_cancelled,
       pages = usage_days.pages + excluded.pages,
       output_bytes = usage_days.output_bytes + excluded.output_bytes`,
    {
      ws: end.workspaceId,
      day: end.day,
      succeeded: succeeded ? 1 : 0,
      failed: end.status === "failed" ? 1 : 0,
      cancelled: end.status === "cancelled" ? 1 : 0,
      pages: succeeded ? count(end.pages, "pages") : 0,
      bytes: succeeded ? count(end.bytes, "bytes") : 0,
    },
  );
}
