-- 0017_render_minutes: the renders each workspace created per UTC minute, real and test apart. The rendersPerMinute
-- allowance reads this minute's row and the last one's, never fewer renders than the last 60 seconds hold, and counts
-- the renders one by one only when that sum could refuse (src/modules/renders/allowances.ts): before, every request
-- counted the last minute's index entries, ~0.1 ms at 20 renders a second. The hourly retention sweep deletes the rows
-- of minutes before the last one.
CREATE TABLE render_minutes (
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  test INTEGER NOT NULL CHECK (test IN (0, 1)),
  minute TEXT NOT NULL,
  renders INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, test, minute)
);
-- The renders created before this migration, so that the first minute after it is counted as exactly as any other.
INSERT INTO render_minutes (workspace_id, test, minute, renders)
  SELECT workspace_id, test, substr(created_at, 1, 16), COUNT(*) FROM renders GROUP BY workspace_id, test, substr(created_at, 1, 16);
