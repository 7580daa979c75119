/** ledger/render-minutes: the renders each workspace created per UTC minute (`render_minutes`), real and test apart —
 * an upper bound of what the last 60 seconds hold that costs two rows to read, for the rendersPerMinute allowance. */
import type { Reads, Tx } from "../store/store";

const MINUTE_MS = 60_000;

/** minuteOf answers the UTC minute of a time, `YYYY-MM-DDTHH:MM`: the prefix of an ISO time, as the migration read it. */
function minuteOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16);
}

/** countRenders adds `renders` created at `at` to their minute's row; call it in the transaction that creates them. */
export function countRenders(tx: Tx, workspaceId: string, test: boolean, at: Date, renders: number): void {
  tx.write(
    `INSERT INTO render_minutes (workspace_id, test, minute, renders) VALUES ($ws, $test, $minute, $renders)
     ON CONFLICT (workspace_id, test, minute) DO UPDATE SET renders = render_minutes.renders + $renders`,
    { ws: workspaceId, test: test ? 1 : 0, minute: minuteOf(at.getTime()), renders },
  );
}

/** rendersAtMost answers, real and test apart, the renders of this minute and the last: the 60 seconds before `now` lie
 * within those two minutes, so never fewer than they hold. */
export async function rendersAtMost(db: Reads, workspaceId: string, now: Date): Promise<{ real: number; test: number }> {
  const rows = await db.all<{ test: number; n: number }>(
    "SELECT test, SUM(renders) AS n FROM render_minutes WHERE workspace_id = $ws AND minute IN ($now, $before) GROUP BY test",
    { ws: workspaceId, now: minuteOf(now.getTime()), before: minuteOf(now.getTime() - MINUTE_MS) },
  );
  const count = (test: number) => Number(rows.find((r) => r.test === test)?.n ?? 0);
  return { real: count(0), test: count(1) };
}

/** sweepRenderMinutes deletes the rows no bound reads any more (older than the last minute); answers how many. */
export function sweepRenderMinutes(tx: Tx, now: Date): Promise<number> {
  return tx.run("DELETE FROM render_minutes WHERE minute < $before", { before: minuteOf(now.getTime() - MINUTE_MS) });
}
