/** queue/fairness: the fair pick of spec 8.1 (5) — workers take turns between workspaces, so every workspace's first
 * waiting render runs before any workspace's second — as the SQL a claim orders the waiting renders by (the same on
 * SQLite and PostgreSQL), so that the renders, the turns and the pick are one statement's: one moment's. */

// Each workspace's first PLACES waiting renders are candidates: processes claiming at once for one busy workspace take
// its first, second… side by side instead of all but one finding its first taken.
const PLACES = 4;

const QUEUED = "FROM renders r JOIN workspaces w ON w.id = r.workspace_id WHERE r.status = 'queued' AND w.suspended = 0";

/** ANY_WAITING answers a row when some render waits. */
export const ANY_WAITING = `SELECT 1 AS waiting ${QUEUED} LIMIT 1`;

/** WAITING selects each workspace's first PLACES queued renders — `place` 1 its oldest, 2 the next… — with `turn`, the
 * turn in which the workspace was last served (-1: never); a suspended workspace renders nothing (spec 8.1 (6)). */
export const WAITING = `SELECT q.id, q.workspace_id, q.created_at, q.place, COALESCE(t.turn, -1) AS turn FROM (
    SELECT r.id, r.workspace_id, r.created_at, ROW_NUMBER() OVER (PARTITION BY r.workspace_id ORDER BY r.created_at, r.id) AS place ${QUEUED}
  ) q LEFT JOIN queue_turns t ON t.workspace_id = q.workspace_id
  WHERE q.place <= ${PLACES}`;

/** fairOrder is the ORDER BY of WAITING's rows (named `alias`) in the order to serve them: every workspace's first before
 * any workspace's second (a second is taken only when every first is being claimed by another process); among firsts,
 * the workspace served longest ago first — one never served before any other — and among equal turns the oldest render,
 * then the smaller id. Nothing is reserved: with one workspace waiting, it gets every pick. */
export const fairOrder = (alias: string) => `${alias}.place, ${alias}.turn, ${alias}.created_at, ${alias}.id`;
