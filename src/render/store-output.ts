/** store-output: a render's or an operation's PDFs stored and the render ended in the transaction that lets their holds
 * go (store/file-deletions.ts): another process deleting the same bytes meanwhile leaves them alone. */
import type { Logger } from "pino";
import type { Clock } from "../lib/clock";
import { sha256Hex } from "../lib/hash";
import type { Laps } from "../lib/laps";
import type { RenderRow } from "../queue/queue";
import { awaitFileHold, releaseFile } from "../store/file-deletions";
import { SPOOL_MAX_BYTES, type SpooledFiles } from "../store/output-spool";
import type { Store, Tx } from "../store/store";

export interface StoreOutputDeps {
  store: Store;
  clock: Clock;
  files: SpooledFiles;
  log: Logger;
  /** Runs the end in a transaction: the worker's group commit, shared with renders ending at the same time. */
  write(end: (tx: Tx) => Promise<RenderRow | null>): Promise<RenderRow | null>;
}

/** storeOutputs holds the PDFs' bytes, stores them, and ends the render with `end` (given their sha256s, in order) in
 * the transaction that lets the holds go. The PDFs are spooled in that transaction (store/output-spool.ts), and written
 * to the file store once it has committed; one too large for the spool is written before it. A render cancelled while
 * it printed points at nothing, so the deletion of its PDFs is recorded in that transaction. `laps` times its steps:
 * hold, write (the PDFs too large to spool, durable), statements (the end's, before the COMMIT). */
export async function storeOutputs(deps: StoreOutputDeps, renderId: string, pdfs: Uint8Array[], end: (tx: Tx, sha256s: string[]) => Promise<RenderRow | null>, laps?: Laps): Promise<RenderRow | null> {
  const { store, clock, files, log } = deps;
  const shas = pdfs.map((pdf) => sha256Hex(pdf));
  // One hold per distinct PDF: two equal parts of a split share it.
  const unique = [...new Set(shas)];
  const release = async (tx: Tx, which = unique) => (await Promise.all(which.map((sha) => releaseFile(tx, clock, "outputs", sha, renderId)))).every(Boolean);
  try {
    for (const sha of unique) await awaitFileHold(store, clock, "outputs", sha, renderId);
    laps?.lap("hold");
    const bytesOf = new Map(shas.map((sha, i) => [sha, pdfs[i]!]));
    const large = unique.filter((sha) => bytesOf.get(sha)!.byteLength > SPOOL_MAX_BYTES);
    for (const sha of large) await files.put("outputs", renderId, bytesOf.get(sha)!, sha);
    laps?.lap("write");
    const spooled = unique.filter((sha) => !large.includes(sha));
    const row = await deps.write(async (tx) => {
      for (const sha of spooled) files.spool(tx, sha, bytesOf.get(sha)!);
      // The row's own PDF is named by end's first statement: its hold's release is sent after it in the same round trip
      // and sees it (or, cancelled, not). A split's further PDFs are named by rows end writes later: theirs follow.
      const [ended, first] = await Promise.all([end(tx, shas), release(tx, unique.slice(0, 1))]);
      const rest = await release(tx, unique.slice(1));
      laps?.lap("statements");
      if (!first || !rest) throw new Error("storing the PDF took so long that its hold ran out: the bytes may have been deleted");
      return ended;
    });
    for (const sha of spooled)
      files.spill(sha, bytesOf.get(sha)!).catch((err: unknown) => log.error({ err, renderId, sha256: sha }, "writing a spooled PDF to the file store failed: it is served from the store, and the worker's sweep writes it"));
    return row;
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
