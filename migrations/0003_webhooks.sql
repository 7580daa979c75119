-- 0003_webhooks: webhook endpoints (spec 2.8), render-end events (6.3) and delivery records (2.9).
-- Times are ISO 8601 UTC text with milliseconds (sortable); booleans are 0/1; JSON is text.

CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  description TEXT,
  -- JSON array of event types (spec 6.1)
  event_types TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  -- AES-256-GCM under SECRET_KEY, base64 of iv | tag | ciphertext (DESIGN.md 5); never the secret itself.
  secret_encrypted TEXT NOT NULL,
  -- spec 6.4 (4): the secret replaced by the last rotation still signs until previous_secret_expires_at.
  previous_secret_encrypted TEXT,
  previous_secret_expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhook_endpoints_by_workspace ON webhook_endpoints (workspace_id, created_at DESC, id DESC);

-- One row per render end: the body's `id`, identical for every endpoint receiving it (spec 6.3).
CREATE TABLE webhook_events (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('render.succeeded', 'render.failed', 'render.cancelled')),
  render_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('succeeded', 'failed', 'cancelled')),
  test INTEGER NOT NULL CHECK (test IN (0, 1)),
  error_code TEXT,
  -- when the render reached its final state
  created_at TEXT NOT NULL
);
CREATE INDEX webhook_events_by_time ON webhook_events (created_at);

-- One row per event and endpoint; its id is the `webhook-id` header, the same on every retry.
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id TEXT NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_status_code INTEGER,
  last_error TEXT,
  last_attempt_at TEXT,
  -- set only while pending (spec 2.9)
  next_attempt_at TEXT,
  -- set while a dispatcher holds the row; a crash mid-attempt leaves it to expire, and the row is sent again.
  lease_expires_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries (created_at);
