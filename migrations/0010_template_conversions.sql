-- 0010_template_conversions: templates made from a PDF asset (issue 14, docs/conversions.md). A conversion is a row that
-- an in-process runner takes from queued to succeeded or failed; a restart finds it here. Its allowance
-- (templateConversionsPerMonth, spec 2.2) is counted in allowance_counters, whose counter names this widens.

CREATE TABLE template_conversions (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  asset_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'processing', 'succeeded', 'failed')),
  -- The template made; it may be deleted later, the conversion still names it.
  template_id TEXT,
  error TEXT,
  -- JSON: the values found in the source, valid against the template's dataSchema.
  sample_data TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  -- The actor and request that asked for it (JSON): the template is created on their behalf, off the request.
  requested_by TEXT NOT NULL,
  request_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
CREATE INDEX template_conversions_by_workspace ON template_conversions (workspace_id, created_at DESC, id DESC);
CREATE INDEX template_conversions_open ON template_conversions (status, created_at) WHERE status IN ('queued', 'processing');

-- SQLite cannot change a CHECK in place: the table is made again with the wider list and its rows copied.
CREATE TABLE allowance_counters_new (
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  counter TEXT NOT NULL CHECK (counter IN ('documents', 'test_renders', 'template_conversions')),
  period TEXT NOT NULL,
  value INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, counter, period)
);
INSERT INTO allowance_counters_new (workspace_id, counter, period, value) SELECT workspace_id, counter, period, value FROM allowance_counters;
DROP TABLE allowance_counters;
ALTER TABLE allowance_counters_new RENAME TO allowance_counters;
