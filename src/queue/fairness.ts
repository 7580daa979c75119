/** queue/fairness: the fair pick of spec 8.1 (5) — workers take turns between workspaces, so every workspace's first
 * waiting render runs before any workspace's second — as the SQL of a claim's pick (the same on SQLite and PostgreSQL),
 * so that the renders, the turns and the pick are one statement's: one moment's. */

// Each workspace's first PLACES waiting renders are candidates: processes claiming at once for one busy workspace take
// its first, second… side by side instead of all but one finding its first taken.
const PLACES = 4;

const QUEUED = "FROM renders r JOIN workspaces w ON w.id = r.workspace_id WHERE r.status = 'queued' AND w.suspended = 0";

/** ANY_WAITING answers a row when some render waits. */
export const ANY_WAITING = `SELECT 1 AS waiting ${QUEUED} LIMIT 1`;

/** FAIR_NEXT selects the id of the render to serve next, locked for the claim: of each workspace's first PLACES queued
 * renders (`place` 1 its oldest…, with `turn`, the turn in which the workspace was last served, -1: never), every
 * workspace's first before any workspace's second (a second is taken only when every first is being claimed by another
 * process); among firsts, the workspace served longest ago first — one never served before any other — and among equal
 * turns the oldest render, then the smaller id. Nothing is reserved: with one workspace waiting, it gets every pick. A
 * render another process holds is skipped; `r.status = 'queued'` is asked again of the row as locked, since on
 * PostgreSQL a row another process claimed and committed after the statement began is re-read at its lock and must then
 * be passed over. A suspended workspace renders nothing (spec 8.1 (6)). */
export const FAIR_NEXT = `SELECT r.id FROM renders r JOIN (
    SELECT q.id, q.created_at, q.place, COALESCE(t.turn, -1) AS turn FROM (
      SELECT r.id, r.workspace_id, r.created_at, ROW_NUMBER() OVER (PARTITION BY r.workspace_id ORDER BY r.created_at, r.id) AS place ${QUEUED}
    ) q LEFT JOIN queue_turns t ON t.workspace_id = q.workspace_id
    WHERE q.place <= ${PLACES}
  ) h ON h.id = r.id
  WHERE r.status = 'queued'
  ORDER BY h.place, h.turn, h.created_at, h.id LIMIT 1 FOR UPDATE OF r SKIP LOCKED`;
