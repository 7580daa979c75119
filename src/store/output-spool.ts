/** store/output-spool: a printed PDF committed with the row that names it. Its bytes go into the transaction that ends
 * the render, so one flush of the store's log makes both durable, where writing the file first cost two flushes more
 * (the file's, then its folder's after the rename) on the render's path (docs/performance.md "The output spool"). After
 * the commit the bytes are written to the file store with the others of their batch, off the render's path, and their
 * rows are deleted; until then every read of the output finds them in the store. SpooledFiles is the FileStore the
 * server works with. */
import type { Clock } from "../lib/clock";
import type { FileArea, FileBytes, FileStore, ListedFile, StoredFile, TempFile, WriteOptions } from "./files";
import { inList } from "./sql-list";
import type { Store, Tx } from "./store";

/** SPOOL_MAX_BYTES: a larger PDF is written to the file store before its transaction, as before the spool; a few MB
 * in the log's flush cost more than the two flushes they would spare. */
export const SPOOL_MAX_BYTES = 4 * 2 ** 20;

/** SPILL_BATCH_MS: how long a spooled PDF waits for others to be written with it. A batch reaches the disk with two
 * flushes of the filesystem in all (files-disk.ts putMany), where a PDF written alone took two fsyncs of its own: ~1 ms
 * of renderd's CPU per invoice at concurrency 8 (docs/performance.md "The spill in batches"). */
export const SPILL_BATCH_MS = 500;

/** SPILL_BATCH_PDFS, SPILL_BATCH_BYTES: a batch this full is written at once. */
export const SPILL_BATCH_PDFS = 64;
export const SPILL_BATCH_BYTES = 4 * SPOOL_MAX_BYTES;

const isFull = (pdfs: number, bytes: number) => pdfs >= SPILL_BATCH_PDFS || bytes >= SPILL_BATCH_BYTES;

/** SPILL_LATE_MS: a spooled PDF older than this was not written by the process that spooled it (it stopped, or the
 * write failed): the cleanup writes it. */
export const SPILL_LATE_MS = 60_000;

// Who the file store's temporary file belongs to while a spooled PDF is written.
const OWNER = "output-spool";

/** firstLook answers the first look at the file store, or `missing` when it fails: a bucket may fail a request now and
 * then (S3's 500 and 503, "try again"), and while the bytes are spooled they answer instead. The look after the row's,
 * made only when no row was found, lets any failure through. */
function firstLook<T>(look: Promise<T>, missing: T): Promise<T> {
  return look.catch(() => missing);
}

/** Batch is the PDFs spilled since the last batch left, written together when it is full or SPILL_BATCH_MS old. */
interface Batch {
  pdfs: Map<string, Uint8Array>;
  bytes: number;
  /** go sends the batch on its way (once; later calls do nothing). */
  go: () => void;
  written: Promise<void>;
}

/** SpooledFiles is a FileStore that also keeps outputs spooled in the store until they are written to it. */
export class SpooledFiles implements FileStore {
  private readonly spilling = new Set<Promise<void>>();
  private batch?: Batch;

  constructor(
    private readonly files: FileStore,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly batchMs = SPILL_BATCH_MS,
  ) {}

  /** spool adds an output's bytes, SPOOL_MAX_BYTES at most, to `tx`, the transaction that will name them (larger ones
   * are stored with `put` before it). Equal bytes spooled already stay. */
  spool(tx: Tx, sha256: string, bytes: Uint8Array): void {
    tx.write("INSERT INTO output_spool (sha256, bytes, spooled_at) VALUES ($sha, $bytes, $at) ON CONFLICT (sha256) DO NOTHING", {
      sha: sha256,
      bytes,
      at: this.clock.now().toISOString(),
    });
  }

  /** spill writes spooled bytes to the file store once their transaction has committed, in the next batch; the render
   * is not kept waiting for it. The promise settles with the batch. A failure leaves them spooled, and served, until a
   * later spillLate writes them. */
  spill(sha256: string, bytes: Uint8Array): Promise<void> {
    const batch = (this.batch ??= this.nextBatch());
    if (!batch.pdfs.has(sha256)) batch.bytes += bytes.byteLength;
    batch.pdfs.set(sha256, bytes);
    if (isFull(batch.pdfs.size, batch.bytes)) batch.go();
    return batch.written;
  }

  private nextBatch(): Batch {
    const { promise: leaves, resolve } = Promise.withResolvers<void>();
    const timer = setTimeout(() => batch.go(), this.batchMs);
    const batch: Batch = {
      pdfs: new Map(),
      bytes: 0,
      go: () => {
        clearTimeout(timer);
        if (this.batch === batch) this.batch = undefined;
        resolve();
      },
      written: leaves.then(() => this.write([...batch.pdfs].map(([sha256, bytes]) => ({ sha256, bytes })))),
    };
    const settled = batch.written.then(
      () => undefined,
      () => undefined,
    );
    this.spilling.add(settled);
    void settled.finally(() => this.spilling.delete(settled));
    return batch;
  }

  /** spillLate writes the spooled outputs older than `olderThanMs` — all of them with 0, as at start, after a crash or
   * a restore — and answers how many. Writing the same bytes twice (another process spilling them too) is harmless:
   * the store is content-addressed. */
  async spillLate(olderThanMs = SPILL_LATE_MS): Promise<number> {
    const before = new Date(this.clock.now().getTime() - olderThanMs).toISOString();
    const rows = await this.store.all<{ sha256: string }>("SELECT sha256 FROM output_spool WHERE spooled_at <= $before ORDER BY spooled_at", { before });
    let written = 0;
    let batch: FileBytes[] = [];
    let bytes = 0;
    const write = async () => {
      await this.write(batch);
      written += batch.length;
      [batch, bytes] = [[], 0];
    };
    for (const { sha256 } of rows) {
      const spooled = await this.spooled(sha256);
      if (!spooled) continue;
      batch.push({ sha256, bytes: spooled });
      bytes += spooled.byteLength;
      if (isFull(batch.length, bytes)) await write();
    }
    if (batch.length) await write();
    return written;
  }

  /** backlog answers how many PDFs the store holds spooled, and their bytes (GET /metrics): more than a few means
   * the file store refuses writes, and the store grows by each PDF meanwhile. */
  async backlog(): Promise<{ pdfs: number; bytes: number }> {
    const row = await this.store.get<{ n: number | string; b: number | string }>("SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(bytes)), 0) AS b FROM output_spool");
    // PostgreSQL answers a count and a sum as text (bigint).
    return { pdfs: Number(row?.n ?? 0), bytes: Number(row?.b ?? 0) };
  }

  /** settled sends the batch being gathered at once and resolves once the writes under way have ended: a stop waits
   * for them before it closes the store. */
  async settled(): Promise<void> {
    this.batch?.go();
    await Promise.all(this.spilling);
  }

  // The rows go only once the files are durable, so a reader that misses a file and then its row finds the file.
  private async write(pdfs: FileBytes[]): Promise<void> {
    await this.files.putMany("outputs", OWNER, pdfs);
    // Not waited onto the disk: a deletion lost in a power cut leaves rows whose bytes are written again at start.
    const { sql, params } = inList("sha256", pdfs.map((pdf) => pdf.sha256), "sha");
    await this.store.tx((tx) => tx.run(`DELETE FROM output_spool WHERE ${sql}`, params), { durable: false });
  }

  private async spooled(sha256: string): Promise<Uint8Array | null> {
    const row = await this.store.get<{ bytes: Uint8Array }>("SELECT bytes FROM output_spool WHERE sha256 = $sha", { sha: sha256 });
    return row?.bytes ?? null;
  }

  open(area: FileArea, sha256: string): StoredFile {
    const file = this.files.open(area, sha256);
    if (area !== "outputs") return file;
    let looked = false;
    let spooled: Uint8Array | null = null;
    // The file, else the spooled bytes, else the file again: the spill may have written it and dropped the row between.
    const find = async () => {
      looked = true;
      return (await firstLook(file.exists(), false)) || (spooled = await this.spooled(sha256)) !== null || (await file.exists());
    };
    const spooledBody = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>]);
    // A body asked for before exists(): where the bytes are is found once the body is read.
    const later = (): ReadableStream<Uint8Array> => {
      let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (!reader) reader = new Response((await find()) && spooled ? spooledBody(spooled) : file.body()).body!.getReader();
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: (reason) => reader?.cancel(reason),
      });
    };
    return {
      exists: find,
      bytes: async () => ((await find()) && spooled ? spooled : file.bytes()),
      body: () => (spooled ? spooledBody(spooled) : looked ? file.body() : later()),
    };
  }

  async read(area: FileArea, sha256: string): Promise<Uint8Array | null> {
    const read = () => this.files.read(area, sha256);
    if (area !== "outputs") return read();
    return (await firstLook(read(), null)) ?? (await this.spooled(sha256)) ?? (await read());
  }

  async stat(area: FileArea, sha256: string): Promise<{ size: number } | null> {
    const stat = () => this.files.stat(area, sha256);
    if (area !== "outputs") return stat();
    // The size alone: the bytes may be megabytes.
    const spooledSize = async () => {
      const row = await this.store.get<{ size: number | string }>("SELECT LENGTH(bytes) AS size FROM output_spool WHERE sha256 = $sha", { sha: sha256 });
      return row ? { size: Number(row.size) } : null;
    };
    return (await firstLook(stat(), null)) ?? (await spooledSize()) ?? (await stat());
  }

  async delete(area: FileArea, sha256: string): Promise<void> {
    await this.files.delete(area, sha256);
    if (area === "outputs") await this.store.tx((tx) => tx.run("DELETE FROM output_spool WHERE sha256 = $sha", { sha: sha256 }));
  }

  writeTemp(owner: string, source: AsyncIterable<Uint8Array> | null, options: WriteOptions): Promise<TempFile> {
    return this.files.writeTemp(owner, source, options);
  }

  discard(temp: TempFile): void {
    this.files.discard(temp);
  }

  isHeldBy(owner: string): boolean {
    return this.files.isHeldBy(owner);
  }

  sweepTemp(): number {
    return this.files.sweepTemp();
  }

  commit(area: FileArea, temp: TempFile): Promise<void> {
    return this.files.commit(area, temp);
  }

  put(area: FileArea, owner: string, bytes: Uint8Array, sha256?: string): Promise<string> {
    return this.files.put(area, owner, bytes, sha256);
  }

  putMany(area: FileArea, owner: string, files: readonly FileBytes[]): Promise<void> {
    return this.files.putMany(area, owner, files);
  }

  /** close writes the batch being gathered and waits for the writes under way (settled), then closes the file store. */
  async close(): Promise<void> {
    await this.settled();
    await this.files.close();
  }

  list(area: FileArea): AsyncIterable<ListedFile[]> {
    return this.files.list(area);
  }
}
