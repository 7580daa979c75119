-- 0012_queue_turns: the fair pick's memory (spec 8.1 (5)) — the turn in which each workspace was last served — kept in
-- the store so that every process sharing it takes the same turns (docs/architecture.md "The render queue"). A claim
-- reads it and writes its workspace's new turn in the claim's transaction. A table of its own rather than a column on
-- workspaces: the claim writes it on every render, and the workspace row, which every request reads, stays unwritten.
CREATE TABLE queue_turns (
  workspace_id TEXT PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  turn INTEGER NOT NULL
);
