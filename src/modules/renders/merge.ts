/**
 * renders/merge: the one PDF of a batch created with `merge: true` (issue 13; docs/pdf.md "Merged batches") — its
 * items' PDFs in item order, made when asked for once every item has succeeded. It is not stored: the items' PDFs
 * are, for as long as retention keeps them, and a merge of a few PDFs costs milliseconds.
 */
import { PDFDocument } from "pdf-lib";
import { ApiError } from "../../errors";
import { PRODUCER } from "../../render/metadata";
import { contentDisposition } from "../assets/download";
import type { RenderDeps } from "./service";

interface ItemRow {
  id: string;
  status: string;
  output_sha256: string | null;
  batch_merge: number;
}

/** mergedBatch answers the merged PDF of a batch of the workspace: 404 for no such batch, 409 CONFLICT when it was not
 * created with merge: true or not every item has succeeded, 413 LIMIT_EXCEEDED over the page or byte limit. */
export async function mergedBatch(deps: RenderDeps, workspaceId: string, batchId: string): Promise<Response> {
  // Inserted in item order by one process in one transaction, and that process's ids sort in the order it made them
  // (lib/ids.ts newId): the id is the item order, on both engines (PostgreSQL has no rowid).
  const items = await deps.store.all<ItemRow>(
    "SELECT id, status, output_sha256, batch_merge FROM renders WHERE batch_id = $batch AND workspace_id = $ws ORDER BY id",
    { batch: batchId, ws: workspaceId },
  );
  if (items.length === 0) throw new ApiError("NOT_FOUND", `Batch ${batchId} was not found.`);
  if (items[0]!.batch_merge !== 1)
    throw new ApiError("CONFLICT", `Batch ${batchId} was not created with merge: true; download its items' PDFs one by one, or create the batch again with merge: true.`);
  const ended = items.find((r) => r.status === "failed" || r.status === "cancelled");
  if (ended) throw new ApiError("CONFLICT", `Render ${ended.id} of batch ${batchId} has ${ended.status}; a merged PDF needs every item to succeed.`);
  const done = items.filter((r) => r.status === "succeeded").length;
  if (done < items.length)
    throw new ApiError("CONFLICT", `${done} of the ${items.length} renders of batch ${batchId} have succeeded; ask again once all have (GET /v1/renders/{id}?wait=60 waits for one).`);

  const { renderMaxPages, renderMaxOutputBytes } = deps.config;
  const merged = await PDFDocument.create();
  for (const item of items) {
    const file = deps.files.open("outputs", item.output_sha256!);
    if (!(await file.exists())) throw new ApiError("NOT_FOUND", `Render ${item.id} of batch ${batchId} has no PDF any more.`);
    const source = await PDFDocument.load(await file.bytes(), { updateMetadata: false });
    for (const page of await merged.copyPages(source, source.getPageIndices())) merged.addPage(page);
    if (merged.getPageCount() > renderMaxPages)
      throw new ApiError("LIMIT_EXCEEDED", `The merged PDF of batch ${batchId} would have more than ${renderMaxPages} pages (RENDER_MAX_PAGES).`);
  }
  merged.setTitle(`${batchId}.pdf`);
  merged.setProducer(PRODUCER);
  merged.setCreator(PRODUCER);
  const pdf = await merged.save();
  if (pdf.byteLength > renderMaxOutputBytes)
    throw new ApiError("LIMIT_EXCEEDED", `The merged PDF of batch ${batchId} has ${pdf.byteLength} bytes; the limit is ${renderMaxOutputBytes} (RENDER_MAX_OUTPUT_BYTES).`);
  return new Response(new Blob([pdf as Uint8Array<ArrayBuffer>]), {
    headers: { "content-type": "application/pdf", "content-disposition": contentDisposition(`${batchId}.pdf`), "x-content-type-options": "nosniff", "cache-control": "private, no-cache" },
  });
}
