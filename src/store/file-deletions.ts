/** store/file-deletions: how stored bytes that several processes share are deleted (docs/architecture.md "Deleting
 * shared bytes"). Bytes are content-addressed, so a writer may be storing the very bytes another process is about to
 * delete. A writer holds the bytes (holdFile) before it stores them and drops the hold (releaseFile) in the transaction
 * that commits its row; the transaction that drops the last reference records a deletion (dropFile) instead of
 * deleting; the sweep (sweepFileDeletions) deletes due bytes nothing references or holds, marking them 'deleting' first
 * so that no writer holds them meanwhile. Transactions are serialised across processes on both engines, so a hold and
 * a sweep's decision never overlap. */
import type { Clock } from "../lib/clock";
import type { FileArea, FileStore } from "./files";
import type { Reads, Store, Tx } from "./store";

/** FILE_DELETE_GRACE_MS is how long unreferenced bytes stay before the sweep deletes them: a reader that found the row
 * just before it went (a download streaming, a render reading its assets) finishes well within it, and a file younger
 * than it found by the orphan scan may be a writer's whose row is not committed yet. */
export const FILE_DELETE_GRACE_MS = 60 * 60_000;

/** FILE_HOLD_MS is how long a writer's hold lasts: far longer than storing one file takes, so that only the hold of a
 * process that died runs out (its bytes are then deleted like any others nothing references). */
export const FILE_HOLD_MS = 60 * 60_000;

// A deletion still 'deleting' after this was started by a sweep that died before it finished: the next sweep deletes
// again. Far longer than one DELETE request, which a live sweep would otherwise repeat after a writer stored the bytes anew.
const DELETING_STALE_MS = 15 * 60_000;

// A sweep holds 'deleting' for one DELETE request; a writer asks again meanwhile, for a while, then gives up.
const HOLD_RETRY_MS = 50;
const HOLD_WAIT_MS = 10_000;

/** FileBeingDeleted: a sweep has been deleting the bytes longer than a writer waits; store them again later. */
export class FileBeingDeleted extends Error {
  constructor(area: FileArea, sha256: string) {
    super(`the ${area} file ${sha256} is being deleted by a sweep that has not finished; try again in a few minutes`);
  }
}

const REFERENCES: Record<FileArea, string> = {
  assets: "SELECT 1 FROM assets WHERE sha256 = $sha AND status = 'uploaded' LIMIT 1",
  // A render's PDF, an operation's further PDFs (a split's parts) and the page images drawn of them (issue 30).
  outputs:
    "SELECT 1 FROM renders WHERE output_sha256 = $sha UNION ALL SELECT 1 FROM render_outputs WHERE sha256 = $sha UNION ALL SELECT 1 FROM page_images WHERE image_sha256 = $sha LIMIT 1",
};

/** isReferenced tells whether a row names the bytes: an uploaded asset, a render's or an operation's PDF, a page image. */
export async function isReferenced(db: Reads, area: FileArea, sha256: string): Promise<boolean> {
  return (await db.get(REFERENCES[area], { sha: sha256 })) !== null;
}

async function isHeld(db: Reads, area: FileArea, sha256: string, now: string): Promise<boolean> {
  return (await db.get("SELECT 1 FROM file_holds WHERE area = $area AND sha256 = $sha AND expires_at > $now LIMIT 1", { area, sha: sha256, now })) !== null;
}

/** inUse tells whether a row references the bytes or a writer holds them (both asked in one round trip). */
async function inUse(db: Reads, area: FileArea, sha256: string, now: string): Promise<boolean> {
  const [referenced, held] = await Promise.all([isReferenced(db, area, sha256), isHeld(db, area, sha256, now)]);
  return referenced || held;
}

/** holdFile records that `holder` is about to store the bytes and reference them, and cancels their pending deletion;
 * false while a sweep is deleting them (store nothing yet: ask again once it is done). */
export function holdFile(store: Store, clock: Clock, area: FileArea, sha256: string, holder: string): Promise<boolean> {
  const now = clock.now();
  // Not waited onto the disk: a hold lost in a power cut leaves the writer's bytes unreferenced (its row was never
  // committed), which only costs their space; the writer's own commit, durable, makes the hold durable before it.
  // It saves a render one fsync on the event loop (docs/performance.md, "After issue 15's changes").
  return store.tx(async (tx) => {
    if (!(await reclaimFile(tx, area, sha256))) return false;
    tx.write(
      `INSERT INTO file_holds (area, sha256, holder, expires_at) VALUES ($area, $sha, $holder, $expires)
       ON CONFLICT (area, sha256, holder) DO UPDATE SET expires_at = excluded.expires_at`,
      { area, sha: sha256, holder, expires: new Date(now.getTime() + FILE_HOLD_MS).toISOString() },
    );
    return true;
  }, { durable: false });
}

/** reclaimFile cancels the pending deletion of bytes a writer is about to reference, inside the writer's transaction, and
 * answers false while a sweep is deleting them (reference nothing yet: ask again once it is done). A transaction that
 * writes the bytes themselves with the row naming them (store/output-spool.ts) needs no hold besides. */
export async function reclaimFile(tx: Tx, area: FileArea, sha256: string): Promise<boolean> {
  const deletion = await tx.get<{ state: string }>("SELECT state FROM file_deletions WHERE area = $area AND sha256 = $sha FOR UPDATE", { area, sha: sha256 });
  if (deletion?.state === "deleting") return false;
  if (deletion) tx.write("DELETE FROM file_deletions WHERE area = $area AND sha256 = $sha", { area, sha: sha256 });
  return true;
}

/** awaitFileHold takes a hold (holdFile), waiting while a sweep deletes the bytes; throws FileBeingDeleted when that
 * lasts longer than a writer should wait (a sweep that died: its deletion is taken up again after DELETING_STALE_MS). */
export async function awaitFileHold(store: Store, clock: Clock, area: FileArea, sha256: string, holder: string): Promise<void> {
  // Real time, not the injected clock: this waits for another process's DELETE request.
  const deadline = performance.now() + HOLD_WAIT_MS;
  while (!(await holdFile(store, clock, area, sha256, holder))) {
    if (performance.now() > deadline) throw new FileBeingDeleted(area, sha256);
    await Bun.sleep(HOLD_RETRY_MS);
  }
}

/** releaseFile drops `holder`'s hold, inside the transaction that commits the row referencing the bytes or gives up on
 * them (their deletion is then recorded, if nothing else references or holds them). False when the hold had run out
 * and been swept: the bytes may be gone, so a row must not name them. */
export async function releaseFile(tx: Tx, clock: Clock, area: FileArea, sha256: string, holder: string): Promise<boolean> {
  const held = (await tx.run("DELETE FROM file_holds WHERE area = $area AND sha256 = $sha AND holder = $holder", { area, sha: sha256, holder })) > 0;
  await dropFile(tx, clock, area, sha256);
  return held;
}

/** dropFile records the deletion of bytes, due after the grace, inside the transaction that has just removed a
 * reference to them, and answers whether it did: not while another row references them or a writer holds them. */
export async function dropFile(tx: Tx, clock: Clock, area: FileArea, sha256: string): Promise<boolean> {
  const now = clock.now();
  if (await inUse(tx, area, sha256, now.toISOString())) return false;
  await schedule(tx, area, sha256, new Date(now.getTime() + FILE_DELETE_GRACE_MS));
  return true;
}

// A deletion already under way stays as it is; a pending one is due at the later of the two times.
async function schedule(tx: Tx, area: FileArea, sha256: string, due: Date): Promise<void> {
  await tx.run(
    `INSERT INTO file_deletions (area, sha256, due_at, state) VALUES ($area, $sha, $due, 'pending')
     ON CONFLICT (area, sha256) DO UPDATE SET due_at = excluded.due_at WHERE file_deletions.state = 'pending' AND file_deletions.due_at < excluded.due_at`,
    { area, sha: sha256, due: due.toISOString() },
  );
}

interface Deletion {
  area: FileArea;
  sha256: string;
}

/** sweepFileDeletions records the deletion of bytes whose writer's hold ran out, then deletes the bytes whose deletion
 * is due and that nothing references or holds, and answers how many it deleted. */
export async function sweepFileDeletions(store: Store, files: FileStore, clock: Clock): Promise<number> {
  const now = clock.now().toISOString();
  const stale = new Date(clock.now().getTime() - DELETING_STALE_MS).toISOString();
  const taken = await store.tx(async (tx) => {
    for (const hold of await tx.all<Deletion>("DELETE FROM file_holds WHERE expires_at <= $now RETURNING area, sha256", { now })) await dropFile(tx, clock, hold.area, hold.sha256);
    const due = await tx.all<Deletion>(
      "SELECT area, sha256 FROM file_deletions WHERE (state = 'pending' AND due_at <= $now) OR (state = 'deleting' AND started_at <= $stale) FOR UPDATE",
      { now, stale },
    );
    const deleting: Deletion[] = [];
    for (const d of due) {
      const key = { area: d.area, sha: d.sha256 };
      if (await inUse(tx, d.area, d.sha256, now)) {
        await tx.run("DELETE FROM file_deletions WHERE area = $area AND sha256 = $sha", key);
        continue;
      }
      await tx.run("UPDATE file_deletions SET state = 'deleting', started_at = $now WHERE area = $area AND sha256 = $sha", { ...key, now });
      deleting.push(d);
    }
    return deleting;
  });
  // After the commit: from here until the rows go, holdFile refuses these bytes.
  const deleted: Deletion[] = [];
  try {
    for (const d of taken) {
      await files.delete(d.area, d.sha256);
      deleted.push(d);
    }
  } finally {
    // Only this sweep's own mark: a row another sweep took up again after DELETING_STALE_MS is that sweep's to end.
    if (deleted.length)
      await store.tx(async (tx) => {
        for (const d of deleted)
          await tx.run("DELETE FROM file_deletions WHERE area = $area AND sha256 = $sha AND state = 'deleting' AND started_at = $now", { area: d.area, sha: d.sha256, now });
      });
  }
  return deleted.length;
}

/** scheduleOrphans records the deletion, due now, of the stored files of `area` older than the grace that no row
 * references and no writer holds (left by a crash between storing bytes and committing their row, or by a deletion
 * before file_deletions existed), and answers how many. It lists the whole area, so it runs at start. */
export async function scheduleOrphans(store: Store, files: FileStore, clock: Clock, area: FileArea): Promise<number> {
  const now = clock.now();
  const bornBefore = now.getTime() - FILE_DELETE_GRACE_MS;
  let scheduled = 0;
  for await (const page of files.list(area)) {
    scheduled += await store.tx(async (tx) => {
      let n = 0;
      for (const f of page) {
        if (f.modifiedAt.getTime() >= bornBefore || (await inUse(tx, area, f.sha256, now.toISOString()))) continue;
        await schedule(tx, area, f.sha256, now);
        n += 1;
      }
      return n;
    });
  }
  return scheduled;
}
