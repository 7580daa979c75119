-- 0009_destinations: places a finished render's PDF is delivered to (issue 14), and one delivery row per render and
-- destination, retried like webhook deliveries (spec 6.5 schedule). Times are ISO 8601 UTC text with milliseconds.

CREATE TABLE destinations (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('s3', 'sftp', 'email', 'http')),
  -- JSON: the type's settings without its credentials (docs/destinations.md lists which fields those are).
  config TEXT NOT NULL,
  -- AES-256-GCM under SECRET_KEY (webhooks/secret-box.ts), JSON of the credential fields; never answered.
  secrets_encrypted TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX destinations_by_workspace ON destinations (workspace_id, created_at DESC, id DESC);

-- Written when the render is accepted, not yet due (next_attempt_at NULL); made due in the transaction that ends the
-- render succeeded, or failed unsent when it ends otherwise.
CREATE TABLE destination_deliveries (
  id TEXT PRIMARY KEY,
  destination_id TEXT NOT NULL REFERENCES destinations (id) ON DELETE CASCADE,
  render_id TEXT NOT NULL REFERENCES renders (id) ON DELETE CASCADE,
  -- the render's position in its list of destinationIds: the order a render shows its deliveries in
  position INTEGER NOT NULL,
  -- the file name and e-mail subject with their {{placeholders}} filled in from the render's data and metadata
  filename TEXT NOT NULL,
  subject TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  last_attempt_at TEXT,
  next_attempt_at TEXT,
  -- set while a dispatcher holds the row; a crash mid-attempt leaves it to expire, and the row is tried again.
  lease_expires_at TEXT,
  delivered_at TEXT,
  location TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX destination_deliveries_due ON destination_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX destination_deliveries_by_destination ON destination_deliveries (destination_id, created_at DESC, id DESC);
CREATE INDEX destination_deliveries_by_render ON destination_deliveries (render_id, position);
