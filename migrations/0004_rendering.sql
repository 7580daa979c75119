-- 0004_rendering: templates with their published versions, renders (the queue is these rows), the daily usage record
-- (spec 2.10) and the allowance counters that outlive retention (documents per month, test renders per day).
-- Times are ISO 8601 UTC text with milliseconds (sortable); booleans are 0/1; JSON is text.

CREATE TABLE templates (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  -- The editable draft (JSON): content, components, dataSchema, stylesheet, assetIds, page, header, footer.
  draft TEXT NOT NULL,
  -- The newest published version number; NULL until the first publish.
  latest_version INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX templates_by_workspace ON templates (workspace_id, created_at DESC, id DESC);

-- Published versions are immutable: rows are inserted by publish and deleted only with their template.
CREATE TABLE template_versions (
  template_id TEXT NOT NULL REFERENCES templates (id) ON DELETE CASCADE,
  version INTEGER NOT NULL CHECK (version >= 1),
  id TEXT NOT NULL UNIQUE,
  -- The draft as it was when published (same JSON shape as templates.draft).
  source TEXT NOT NULL,
  published_at TEXT NOT NULL,
  PRIMARY KEY (template_id, version)
);

CREATE TABLE renders (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('queued', 'processing', 'succeeded', 'failed', 'cancelled')),
  test INTEGER NOT NULL CHECK (test IN (0, 1)),
  -- What it was made from: a template version or draft, a DocumentNode, raw HTML, or a template preview.
  source TEXT NOT NULL CHECK (source IN ('template', 'document', 'html', 'preview', 'report')),
  -- No foreign key: a render outlives its template, and names what it was made from.
  template_id TEXT,
  template_version INTEGER,
  batch_id TEXT,
  filename TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  -- The printable job (JSON: html, header, footer, pdf settings, asset scope), made when the render was accepted.
  -- Cleared when the render ends: only a waiting or running render needs it.
  job TEXT,
  -- Times the render was taken back from `processing` after the process died (DESIGN.md 4: once, then failed).
  recoveries INTEGER NOT NULL DEFAULT 0,
  output_sha256 TEXT,
  pages INTEGER,
  bytes INTEGER,
  error_code TEXT,
  error_message TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
CREATE INDEX renders_by_workspace ON renders (workspace_id, created_at DESC, id DESC);
CREATE INDEX renders_waiting ON renders (workspace_id, created_at, id) WHERE status = 'queued';
CREATE INDEX renders_active ON renders (workspace_id, test, status) WHERE status IN ('queued', 'processing');
CREATE INDEX renders_by_creation ON renders (workspace_id, test, created_at);
CREATE INDEX renders_by_output ON renders (output_sha256) WHERE output_sha256 IS NOT NULL;
CREATE INDEX renders_finished ON renders (finished_at) WHERE finished_at IS NOT NULL;

-- spec 2.10: one row per workspace and UTC day on which a render finished; kept after the renders are deleted.
CREATE TABLE usage_days (
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  day TEXT NOT NULL,
  renders_succeeded INTEGER NOT NULL DEFAULT 0,
  renders_failed INTEGER NOT NULL DEFAULT 0,
  renders_cancelled INTEGER NOT NULL DEFAULT 0,
  pages INTEGER NOT NULL DEFAULT 0,
  output_bytes INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, day)
);
CREATE INDEX usage_days_by_day ON usage_days (day, workspace_id);

-- spec 2.3 counters per period ('YYYY-MM' or 'YYYY-MM-DD'): `documents` (real documents of a month, renders in
-- progress included, XLSX outputs too) and `test_renders` (test renders created on a day). Kept apart from the render
-- rows so that retention never lowers them.
CREATE TABLE allowance_counters (
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  counter TEXT NOT NULL CHECK (counter IN ('documents', 'test_renders')),
  period TEXT NOT NULL,
  value INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, counter, period)
);
