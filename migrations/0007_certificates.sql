-- 0007_certificates: signing certificates (issue 13). The PKCS#12 file and its password are kept only sealed under
-- SECRET_KEY (AES-256-GCM, base64 of iv | tag | ciphertext, as webhook secrets are, DESIGN.md 5); the facts are
-- copied out for reading without opening the seal.

CREATE TABLE certificates (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  subject TEXT NOT NULL,
  issuer TEXT NOT NULL,
  serial_number TEXT NOT NULL,
  not_before TEXT NOT NULL,
  not_after TEXT NOT NULL,
  sha256_fingerprint TEXT NOT NULL,
  -- sealed JSON {pkcs12: base64, password}; never the file or the password in clear.
  pkcs12_encrypted TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX certificates_by_workspace ON certificates (workspace_id, created_at DESC, id DESC);
