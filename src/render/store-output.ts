/** store-output: a render's or an operation's PDFs stored and the render ended in one transaction, so that another
 * process deleting the same bytes meanwhile leaves them alone (store/file-deletions.ts): the transaction holds the bytes
 * themselves (store/output-spool.ts), or lets go the holds taken while they were written. */
import type { Logger } from "pino";
import type { Clock } from "../lib/clock";
import { sha256Hex } from "../lib/hash";
import type { Laps } from "../lib/laps";
import type { Queue, RenderRow } from "../queue/queue";
import { recordOutputs } from "../store/render-outputs";
import { awaitFileHold, reclaimFile, releaseFile } from "../store/file-deletions";
import { SPOOL_MAX_BYTES, type SpooledFiles } from "../store/output-spool";
import type { Store, Tx } from "../store/store";
import { isOperationJob, type OperationJob } from "./operation";
import type { PrintJob } from "./job";
import type { Made } from "./produce";

export interface StoreOutputDeps {
  store: Store;
  clock: Clock;
  files: SpooledFiles;
  log: Logger;
  /** Runs the end in a transaction: the worker's group commit, shared with renders ending at the same time. */
  write(end: (tx: Tx) => Promise<RenderRow | null>): Promise<RenderRow | null>;
}

/** storeOutputs stores a render's PDFs and ends the render with `end` (given their sha256s, in order). PDFs of
 * SPOOL_MAX_BYTES at most are spooled in the end's own transaction (store/output-spool.ts) and written to the file
 * store once it has committed; larger ones are held, stored, then let go in that transaction (endHeld). A render
 * cancelled while it printed names no PDF and stores none. `laps` times its steps: hold and write (the held path's),
 * statements (the end's, before the COMMIT). */
export async function storeOutputs(deps: StoreOutputDeps, renderId: string, pdfs: Uint8Array[], end: (tx: Tx, sha256s: string[]) => Promise<RenderRow | null>, laps?: Laps): Promise<RenderRow | null> {
  const shas = pdfs.map((pdf) => sha256Hex(pdf));
  if (pdfs.every((pdf) => pdf.byteLength <= SPOOL_MAX_BYTES)) {
    const ended = await endSpooled(deps, renderId, shas, pdfs, end, laps);
    if (ended !== BEING_DELETED) return ended;
  }
  return endHeld(deps, renderId, shas, pdfs, end, laps);
}

/** storeMade stores what the worker made of a render's job and ends the render succeeded (null when it was cancelled
 * meanwhile): its first PDF's facts on the render, an operation's every output recorded beside it. */
export function storeMade(deps: StoreOutputDeps, queue: Queue, renderId: string, job: PrintJob | OperationJob, made: Made, printedAt: string | undefined, laps: Laps): Promise<RenderRow | null> {
  const [pdf, pages] = [made.pdfs[0]!, made.pages[0]!];
  return storeOutputs(deps, renderId, made.pdfs, async (tx, shas) => {
    const row = await queue.complete(tx, renderId, { outputSha256: shas[0]!, pages, bytes: pdf.length, warnings: made.warnings, printedAt });
    if (row && isOperationJob(job)) await recordOutputs(tx, renderId, shas.map((sha256, i) => ({ sha256, pages: made.pages[i]!, bytes: made.pdfs[i]!.length })), made.details);
    return row;
  }, laps);
}

const BEING_DELETED = Symbol("being deleted");

class BeingDeleted extends Error {}

// The end's transaction holds the bytes themselves, so no sweep can delete them before the row naming them commits: no
// hold is taken (one transaction less per render). Only a sweep deleting an earlier copy of the very same bytes at
// this moment stops it, and the render stores them held instead, once that deletion is done.
async function endSpooled(deps: StoreOutputDeps, renderId: string, shas: string[], pdfs: Uint8Array[], end: (tx: Tx, sha256s: string[]) => Promise<RenderRow | null>, laps?: Laps): Promise<RenderRow | null | typeof BEING_DELETED> {
  const { files, log } = deps;
  const bytesOf = new Map(shas.map((sha, i) => [sha, pdfs[i]!]));
  let row: RenderRow | null;
  try {
    row = await deps.write(async (tx) => {
      const ended = await end(tx, shas);
      if (ended) {
        for (const [sha, bytes] of bytesOf) {
          if (!(await reclaimFile(tx, "outputs", sha))) throw new BeingDeleted();
          files.spool(tx, sha, bytes);
        }
      }
      laps?.lap("statements");
      return ended;
    });
  } catch (e) {
    if (e instanceof BeingDeleted) return BEING_DELETED;
    throw e;
  }
  if (row)
    for (const [sha, bytes] of bytesOf)
      files.spill(sha, bytes).catch((err: unknown) => log.error({ err, renderId, sha256: sha }, "writing a spooled PDF to the file store failed: it is served from the store, and the worker's sweep writes it"));
  return row;
}

// Each distinct PDF is held, stored durably, and its hold let go in the end's transaction: a sweep cannot delete the
// bytes between the write and the commit of the row naming them. A cancelled render's PDFs get their deletion recorded
// in that transaction.
async function endHeld(deps: StoreOutputDeps, renderId: string, shas: string[], pdfs: Uint8Array[], end: (tx: Tx, sha256s: string[]) => Promise<RenderRow | null>, laps?: Laps): Promise<RenderRow | null> {
  const { store, clock, files, log } = deps;
  // One hold per distinct PDF: two equal parts of a split share it.
  const unique = [...new Set(shas)];
  const release = async (tx: Tx, which = unique) => (await Promise.all(which.map((sha) => releaseFile(tx, clock, "outputs", sha, renderId)))).every(Boolean);
  try {
    for (const sha of unique) await awaitFileHold(store, clock, "outputs", sha, renderId);
    laps?.lap("hold");
    for (const sha of unique) await files.put("outputs", renderId, pdfs[shas.indexOf(sha)]!, sha);
    laps?.lap("write");
    return await deps.write(async (tx) => {
      // The row's own PDF is named by end's first statement: its hold's release is sent after it in the same round trip
      // and sees it (or, cancelled, not). A split's further PDFs are named by rows end writes later: theirs follow.
      const [row, first] = await Promise.all([end(tx, shas), release(tx, unique.slice(0, 1))]);
      const rest = await release(tx, unique.slice(1));
      laps?.lap("statements");
      if (!first || !rest) throw new Error("storing the PDF took so long that its hold ran out: the bytes may have been deleted");
      return row;
    });
  } catch (e) {
    try {
      await store.tx(release);
    } catch (err) {
      // The hold runs out by itself; the sweep then records the deletion.
      log.error({ err, renderId }, "letting go of a PDF's hold failed");
    }
    throw e;
  }
}
