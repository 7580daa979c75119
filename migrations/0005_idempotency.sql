-- 0005_idempotency: the first answer to each Idempotency-Key, kept 24 hours per workspace (docs/rendering.md).
-- Times are ISO 8601 UTC text with milliseconds (sortable).

CREATE TABLE idempotency_keys (
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  -- sha256 of the method, the path and the body in canonical JSON: what "the same request" means.
  fingerprint TEXT NOT NULL,
  -- The first answer's status and JSON body: NULL while the first request runs, or the answer it kept along with what it
  -- created (a render's 202) until it answers for good (`final`).
  status INTEGER,
  body TEXT,
  final INTEGER NOT NULL DEFAULT 0 CHECK (final IN (0, 1)),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, key)
);
CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
