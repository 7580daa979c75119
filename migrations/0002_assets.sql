-- 0002_assets: registered and uploaded assets (spec 2.6, 4.5). The bytes live in DATA_DIR/assets/ab/cd/<sha256>,
-- never in SQLite; several assets with the same sha256 share one file.

CREATE TABLE assets (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('image', 'svg', 'font', 'stylesheet', 'workbook', 'pdf')),
  filename TEXT NOT NULL,
  media_type TEXT NOT NULL,
  size INTEGER NOT NULL CHECK (size > 0 AND size <= 50000000),
  sha256 TEXT NOT NULL,
  -- pending: registered, bytes not yet received; uploaded: the file is in the store.
  status TEXT NOT NULL CHECK (status IN ('pending', 'uploaded')),
  created_at TEXT NOT NULL,
  upload_expires_at TEXT NOT NULL,
  uploaded_at TEXT,
  -- The actor who registered the asset (JSON): the upload, authorised only by the signed address, acts on their behalf.
  registered_by TEXT NOT NULL
);
CREATE INDEX assets_by_workspace ON assets (workspace_id, status, created_at DESC, id DESC);
CREATE INDEX assets_by_sha256 ON assets (sha256, status);
CREATE INDEX assets_pending_by_expiry ON assets (upload_expires_at) WHERE status = 'pending';
