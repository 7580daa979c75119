/** store/page-images: the rows of the page-image cache (migration 0014; docs/pdf.md "Page images") — an image drawn of
 * a page of a stored PDF, its bytes a file of the `outputs` area — and their deletion with the PDF. */
import type { Clock } from "../lib/clock";
import { dropFile } from "./file-deletions";
import type { Reads, Tx } from "./store";

/** cachedPageImage answers the image kept for this page and variant of the PDF, or null. */
export function cachedPageImage(db: Reads, pdfSha256: string, page: number, variant: string): Promise<{ sha256: string; bytes: number } | null> {
  return db.get<{ sha256: string; bytes: number }>("SELECT image_sha256 AS sha256, bytes FROM page_images WHERE pdf_sha256 = $pdf AND page = $page AND variant = $variant", {
    pdf: pdfSha256,
    page,
    variant,
  });
}

/** keepPageImage records an image of a page, inside the transaction that lets its bytes' hold go. */
export async function keepPageImage(tx: Tx, clock: Clock, row: { pdfSha256: string; page: number; variant: string; sha256: string; bytes: number }): Promise<void> {
  await tx.run(
    `INSERT INTO page_images (pdf_sha256, page, variant, image_sha256, bytes, created_at) VALUES ($pdf, $page, $variant, $sha, $bytes, $now)
     ON CONFLICT (pdf_sha256, page, variant) DO UPDATE SET image_sha256 = excluded.image_sha256, bytes = excluded.bytes, created_at = excluded.created_at`,
    { pdf: row.pdfSha256, page: row.page, variant: row.variant, sha: row.sha256, bytes: row.bytes, now: clock.now().toISOString() },
  );
}

/** dropPageImages deletes the images drawn of a PDF whose last reference has gone, recording their bytes' deletion, in
 * the caller's transaction; answers how many. */
export async function dropPageImages(tx: Tx, clock: Clock, pdfSha256: string): Promise<number> {
  const gone = await tx.all<{ image_sha256: string }>("DELETE FROM page_images WHERE pdf_sha256 = $pdf RETURNING image_sha256", { pdf: pdfSha256 });
  for (const sha of new Set(gone.map((r) => r.image_sha256))) await dropFile(tx, clock, "outputs", sha);
  return gone.length;
}
