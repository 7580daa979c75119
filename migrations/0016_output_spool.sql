-- 0016_output_spool: a printed PDF's bytes committed in the transaction that ends its render, so that one flush of the
-- store's log makes both durable, instead of a flush of the file and of its folder before the commit
-- (src/store/output-spool.ts). The bytes are written to the file store just after and the row deleted; until then a
-- download reads them from here.
CREATE TABLE output_spool (
  sha256 TEXT PRIMARY KEY,
  bytes BLOB NOT NULL,
  spooled_at TEXT NOT NULL
);
CREATE INDEX output_spool_age ON output_spool (spooled_at);
