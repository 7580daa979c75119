/** store/render-outputs: the PDFs of a PDF operation beyond the row's own output_sha256 (a split's parts) and the
 * result's facts (migration 0014), written in the transaction that ends it, read back for its answer. */
import type { Reads, Tx } from "./store";

/** StoredOutput is one PDF of an operation, in order. */
export interface StoredOutput {
  sha256: string;
  pages: number;
  bytes: number;
}

/** recordOutputs keeps an operation's PDFs in order and its result's facts (JSON), in the transaction that ends it. */
export async function recordOutputs(tx: Tx, renderId: string, outputs: StoredOutput[], details: string | null): Promise<void> {
  // Sent together: one round trip on PostgreSQL.
  await Promise.all([
    ...outputs.map((o, part) =>
      tx.run("INSERT INTO render_outputs (render_id, part, sha256, pages, bytes) VALUES ($id, $part, $sha, $pages, $bytes)", {
        id: renderId,
        part,
        sha: o.sha256,
        pages: o.pages,
        bytes: o.bytes,
      }),
    ),
    ...(details === null ? [] : [tx.run("UPDATE renders SET details = $details WHERE id = $id", { id: renderId, details })]),
  ]);
}

/** outputsOf answers an operation's PDFs in order (none for a render). */
export function outputsOf(db: Reads, renderId: string): Promise<StoredOutput[]> {
  return db.all<StoredOutput>("SELECT sha256, pages, bytes FROM render_outputs WHERE render_id = $id ORDER BY part", { id: renderId });
}
