-- 0008_pdf_options: the renders of a batch created with merge: true are marked, so that
-- GET /v1/renders/batch/{batchId}/merged tells such a batch from another (docs/pdf.md "Merged batches").
ALTER TABLE renders ADD COLUMN batch_merge INTEGER NOT NULL DEFAULT 0;
