-- 0014_page_images_and_operations: issue 30 (docs/pdf.md "Page images", "Operations on PDFs").
-- page_images: the images drawn of a stored PDF's pages, kept so that a second ask is served from the file store. Keyed
-- by the PDF's bytes (renders with the same bytes share them) and the variant (`png:w800`, `jpeg:d150`); the image is a
-- file of the `outputs` area, deleted with the PDF's last render (queue/retention.ts).
CREATE TABLE page_images (
  pdf_sha256 TEXT NOT NULL,
  page INTEGER NOT NULL,
  variant TEXT NOT NULL,
  image_sha256 TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (pdf_sha256, page, variant)
);
CREATE INDEX page_images_image ON page_images (image_sha256);
-- render_outputs: the PDFs of a PDF operation, in order (a split has one per range); the first is also the row's
-- output_sha256, so downloads, deliveries and retention read an operation as they read a render.
CREATE TABLE render_outputs (
  render_id TEXT NOT NULL REFERENCES renders (id) ON DELETE CASCADE,
  part INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  pages INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  PRIMARY KEY (render_id, part)
);
CREATE INDEX render_outputs_sha256 ON render_outputs (sha256);
-- A PDF operation is a job of the render queue, told apart by kind. Its source stays one of the five the CHECK of 0004
-- allows ('document': it works on documents that exist): SQLite changes a CHECK only by rebuilding the table, and
-- renders cannot be rebuilt inside a migration while other tables' foreign keys point at it.
ALTER TABLE renders ADD COLUMN kind TEXT NOT NULL DEFAULT 'render' CHECK (kind IN ('render', 'operation'));
-- The facts of a render's result beyond its PDF (JSON): an operation's name and a compress's bytes before it, a
-- render's image output ({format, dpi, pages}). Set when the render is queued and when it succeeds.
ALTER TABLE renders ADD COLUMN details TEXT;
