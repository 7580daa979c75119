-- 0013_file_deletions: file bytes shared by several processes are deleted late, and never under a writer
-- (docs/architecture.md "Deleting shared bytes"). A hold says a writer is about to store bytes it will reference; a
-- deletion is recorded when the last reference goes and carried out by the sweep once due, unless the bytes are
-- referenced or held again by then.
CREATE TABLE file_holds (
  area TEXT NOT NULL CHECK (area IN ('assets', 'outputs')),
  sha256 TEXT NOT NULL,
  holder TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (area, sha256, holder)
);
CREATE INDEX file_holds_expiry ON file_holds (expires_at);
CREATE TABLE file_deletions (
  area TEXT NOT NULL CHECK (area IN ('assets', 'outputs')),
  sha256 TEXT NOT NULL,
  due_at TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'deleting')),
  started_at TEXT,
  PRIMARY KEY (area, sha256)
);
CREATE INDEX file_deletions_due ON file_deletions (due_at);
