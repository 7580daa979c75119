-- 0011_render_leases: a claimed render carries a lease — the process that holds it and until when (docs/architecture.md
-- "The render queue"). A process renews its leases while it prints; a render whose lease ran out goes back to the
-- queue for another process (once; the second time it fails, as after a crash). NULL while not processing.
ALTER TABLE renders ADD COLUMN lease_owner TEXT;
ALTER TABLE renders ADD COLUMN lease_expires_at TEXT;
CREATE INDEX renders_leases ON renders (lease_expires_at) WHERE status = 'processing';
