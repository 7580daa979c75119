/**
 * delivery-rows: what the two delivery tables (webhook_deliveries, destination_deliveries) share, so both dispatchers
 * claim and settle their rows by one rule: a row is due while pending, its next attempt reached and no lease alive; a
 * claim leases it for the attempt's timeout and a margin; an attempt's outcome makes it done, pending on the retry
 * schedule (retry.ts), or failed after the last attempt.
 */
import { inList } from "../store/sql-list";
import type { Reads, Tx } from "../store/store";
import { nextAttemptAt } from "./retry";

export type DeliveryTable = "webhook_deliveries" | "destination_deliveries";

/** What a dispatcher reads with its due rows: `columns` and `joins` over the table aliased `d`, and the column that
 * `perKey` counts by. */
export interface DueRowsQuery {
  table: DeliveryTable;
  columns: string;
  joins: string;
  keyColumn: "endpoint_id" | "destination_id";
}

// A claimed row is left alone this long past the attempt's timeout; only a crash mid-attempt lets a lease run out.
const LEASE_MARGIN_MS = 60_000;

/** dueRows reads due rows oldest first, at most `limit`, rows whose key is in `busy` left out; with `lock` the rows are
 * locked and those another process is claiming skipped (`FOR UPDATE … SKIP LOCKED`). */
export function dueRows<R>(db: Reads, query: DueRowsQuery, now: Date, limit: number, busy: string[], lock: boolean): Promise<R[]> {
  const atCap = inList(`d.${query.keyColumn}`, busy, "busy");
  return db.all<R>(
    `SELECT ${query.columns}
     FROM ${query.table} d ${query.joins}
     WHERE d.status = 'pending' AND d.next_attempt_at <= $now AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $now)
       AND NOT (${atCap.sql})
     ORDER BY d.next_attempt_at, d.id
     LIMIT $limit${lock ? " FOR UPDATE OF d SKIP LOCKED" : ""}`,
    { now: now.toISOString(), ...atCap.params, limit },
  );
}

/** leaseRow holds a claimed row past the attempt's timeout; a lease that runs out (a crash mid-attempt) frees the row
 * for the next claim. Inside the claiming transaction. */
export async function leaseRow(tx: Tx, table: DeliveryTable, id: string, now: Date, timeoutMs: number): Promise<void> {
  const lease = new Date(now.getTime() + timeoutMs + LEASE_MARGIN_MS).toISOString();
  await tx.run(`UPDATE ${table} SET lease_expires_at = $lease WHERE id = $id`, { id, lease });
}

/** attemptResult answers what an attempt at `at` makes of a row that had `attemptsBefore`: done when it succeeded,
 * else pending until the schedule's next attempt, or failed after the last (spec 6.5 (3)). */
export function attemptResult(at: Date, attemptsBefore: number, succeeded: boolean): { attempts: number; next: Date | null; status: "done" | "pending" | "failed" } {
  const attempts = attemptsBefore + 1;
  const next = succeeded ? null : nextAttemptAt(at, attempts);
  return { attempts, next, status: succeeded ? "done" : next ? "pending" : "failed" };
}
