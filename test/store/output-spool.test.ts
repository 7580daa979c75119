/** The output spool (src/store/output-spool.ts), on SQLite and on PostgreSQL: a PDF committed in a transaction is read
 * from the store until its file is written, the write lets the row go, and what a stopped process or a failed write
 * left is written later. */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { ManualClock } from "../../src/lib/clock";
import { sha256Hex } from "../../src/lib/hash";
import type { FileArea, FileBytes, StoredFile } from "../../src/store/files";
import { DiskFiles } from "../../src/store/files-disk";
import { SPILL_BATCH_PDFS, SpooledFiles, SPILL_LATE_MS } from "../../src/store/output-spool";
import type { Store } from "../../src/store/store";
import { rejection } from "../wait";
import { ENGINES, testStores } from "./engines";

const stores = testStores("spool");

/** Files whose writes fail while `failing` is set (a full disk, a bucket that does not answer), and whose looks at a
 * file fail while `looksFail` is set (a bucket's passing 500). */
class FailingFiles extends DiskFiles {
  failing = false;
  looksFail = false;
  /** Each batch the spool wrote, by its PDFs' sha256. */
  readonly batches: string[][] = [];
  override async putMany(area: FileArea, owner: string, files: readonly FileBytes[]): Promise<void> {
    if (this.failing) throw new Error("the disk is full");
    this.batches.push(files.map((file) => file.sha256));
    return super.putMany(area, owner, files);
  }
  override open(area: FileArea, sha256: string): StoredFile {
    const file = super.open(area, sha256);
    return { ...file, exists: () => this.look(() => file.exists()) };
  }
  override read(area: FileArea, sha256: string): Promise<Uint8Array | null> {
    return this.look(() => super.read(area, sha256));
  }
  override stat(area: FileArea, sha256: string): Promise<{ size: number } | null> {
    return this.look(() => super.stat(area, sha256));
  }
  private async look<T>(look: () => Promise<T>): Promise<T> {
    if (this.looksFail) throw new Error("S3Error: an unexpected error has occurred");
    return look();
  }
}

const pdf = (text: string) => new TextEncoder().encode(`%PDF-1.7 ${text}`);
const rows = async (store: Store) => (await store.all<{ sha256: string }>("SELECT sha256 FROM output_spool ORDER BY sha256")).map((r) => r.sha256);

for (const engine of ENGINES) {
  describe(`the output spool on ${engine}`, () => {
    const opened: FailingFiles[] = [];
    afterEach(async () => {
      for (const disk of opened.splice(0)) await disk.close();
    });

    /** setUp answers a spool whose batches wait `batchMs` (short: the tests wait for them). */
    async function setUp(batchMs = 20) {
      const clock = new ManualClock("2026-03-10T10:00:00.000Z");
      const place = await stores.place(engine);
      const store = await stores.open(place, clock);
      const disk = new FailingFiles(place.dataDir);
      opened.push(disk);
      return { clock, store, disk, files: new SpooledFiles(disk, store, clock, batchMs) };
    }

    test("a spooled PDF is read from the store until it is written, then from its file, and its row goes; the backlog counts it", async () => {
      const { store, disk, files } = await setUp();
      const bytes = pdf("spooled");
      const sha = sha256Hex(bytes);
      expect(await files.backlog()).toEqual({ pdfs: 0, bytes: 0 });
      await store.tx(async (tx) => files.spool(tx, sha, bytes));
      expect(await files.backlog()).toEqual({ pdfs: 1, bytes: bytes.byteLength });
      expect(existsSync(disk.path("outputs", sha))).toBe(false);
      expect(await files.read("outputs", sha)).toEqual(bytes);
      expect(await files.stat("outputs", sha)).toEqual({ size: bytes.byteLength });
      const opened = files.open("outputs", sha);
      expect(await opened.exists()).toBe(true);
      expect(new Uint8Array(await new Response(opened.body()).arrayBuffer())).toEqual(bytes);
      expect(await files.open("outputs", sha).bytes()).toEqual(bytes);
      // A body asked for without exists() first (a preview answers the PDF at once) finds the bytes as it is read.
      expect(new Uint8Array(await new Response(files.open("outputs", sha).body()).arrayBuffer())).toEqual(bytes);

      await files.spill(sha, bytes);
      expect(await rows(store)).toEqual([]);
      expect(await files.backlog()).toEqual({ pdfs: 0, bytes: 0 });
      expect(new Uint8Array(await Bun.file(disk.path("outputs", sha)).bytes())).toEqual(bytes);
      expect(await files.read("outputs", sha)).toEqual(bytes);
      const file = files.open("outputs", sha);
      expect(await file.exists()).toBe(true);
      expect(new Uint8Array(await new Response(file.body()).arrayBuffer())).toEqual(bytes);
      expect(new Uint8Array(await new Response(files.open("outputs", sha).body()).arrayBuffer())).toEqual(bytes);
      // Bytes never spooled nor stored: none.
      const other = sha256Hex(pdf("never stored"));
      expect(await files.read("outputs", other)).toBeNull();
      expect(await files.stat("outputs", other)).toBeNull();
      expect(await files.open("outputs", other).exists()).toBe(false);
    });

    test("a reader that misses the file just before the write and the row just after it finds the file", async () => {
      const { store, disk, files } = await setUp();
      const bytes = pdf("raced");
      const sha = sha256Hex(bytes);
      await store.tx(async (tx) => files.spool(tx, sha, bytes));
      // The write runs between the reader's look at the file and its look at the row: the row is gone by then.
      const get = store.get.bind(store);
      const racing = Object.assign(Object.create(store), {
        get: async (sql: string, params?: Parameters<Store["get"]>[1]) => {
          if (sql.includes("FROM output_spool")) await new SpooledFiles(disk, store, new ManualClock(), 0).spill(sha, bytes);
          return get(sql, params);
        },
      }) as Store;
      const reader = new SpooledFiles(disk, racing, new ManualClock(), 0);
      expect(await reader.read("outputs", sha)).toEqual(bytes);
      expect(await rows(store)).toEqual([]);
      expect(await reader.stat("outputs", sha)).toEqual({ size: bytes.byteLength });
      expect(await reader.open("outputs", sha).exists()).toBe(true);
    });

    test("a file store that fails its looks while a PDF is spooled: the spooled bytes answer; without them the failure does", async () => {
      const { store, disk, files } = await setUp();
      const bytes = pdf("looked at mid-write");
      const sha = sha256Hex(bytes);
      await store.tx(async (tx) => files.spool(tx, sha, bytes));
      disk.looksFail = true;
      expect(await files.read("outputs", sha)).toEqual(bytes);
      expect(await files.stat("outputs", sha)).toEqual({ size: bytes.byteLength });
      const opened = files.open("outputs", sha);
      expect(await opened.exists()).toBe(true);
      expect(new Uint8Array(await new Response(opened.body()).arrayBuffer())).toEqual(bytes);
      // Not spooled (written and its row gone, or never stored): the file store's failure is the answer, not "none".
      const other = sha256Hex(pdf("not spooled"));
      const failure = "S3Error: an unexpected error has occurred";
      expect((await rejection(files.read("outputs", other))).message).toBe(failure);
      expect((await rejection(files.stat("outputs", other))).message).toBe(failure);
      expect((await rejection(files.open("outputs", other).exists())).message).toBe(failure);
    });

    test("PDFs spilled close together are written in one batch: it leaves when full, when settled() asks, or after its wait", async () => {
      const { store, disk, files } = await setUp(60_000);
      const some = ["one", "two", "three"].map(pdf);
      await store.tx(async (tx) => some.forEach((bytes) => files.spool(tx, sha256Hex(bytes), bytes)));
      let written = 0;
      const spills = some.map((bytes) => files.spill(sha256Hex(bytes), bytes).then(() => (written += 1)));
      // The same PDF spilled twice (two renders of the same bytes) is written once.
      spills.push(files.spill(sha256Hex(some[0]!), some[0]!).then(() => (written += 1)));
      await Bun.sleep(50);
      expect(disk.batches).toEqual([]);
      expect(written).toBe(0);
      await files.settled();
      expect(written).toBe(4);
      expect(disk.batches).toEqual([some.map(sha256Hex)]);
      expect(await rows(store)).toEqual([]);
      for (const bytes of some) expect(new Uint8Array(await Bun.file(disk.path("outputs", sha256Hex(bytes))).bytes())).toEqual(bytes);

      // A full batch leaves at once, without settled() and an hour before its wait is over; the next PDF starts another.
      const many = Array.from({ length: SPILL_BATCH_PDFS + 1 }, (_, i) => pdf(`many ${i}`));
      await store.tx(async (tx) => many.forEach((bytes) => files.spool(tx, sha256Hex(bytes), bytes)));
      const full = many.slice(0, SPILL_BATCH_PDFS).map((bytes) => files.spill(sha256Hex(bytes), bytes));
      const next = files.spill(sha256Hex(many.at(-1)!), many.at(-1)!);
      await Promise.all(full);
      expect(disk.batches.slice(1)).toEqual([many.slice(0, SPILL_BATCH_PDFS).map(sha256Hex)]);
      expect(await rows(store)).toEqual([sha256Hex(many.at(-1)!)]);
      await files.settled();
      await next;
      expect(disk.batches.slice(2)).toEqual([[sha256Hex(many.at(-1)!)]]);

      // What a stopped process left is written in batches as full as that.
      await store.tx(async (tx) => many.forEach((bytes) => files.spool(tx, sha256Hex(`late ${bytes}`), bytes)));
      expect(await files.spillLate(0)).toBe(SPILL_BATCH_PDFS + 1);
      expect(disk.batches.slice(3).map((batch) => batch.length)).toEqual([SPILL_BATCH_PDFS, 1]);
      expect(await rows(store)).toEqual([]);
    });

    test("a failed write leaves the PDF spooled and served; spillLate writes it once late, and at start whatever its age", async () => {
      const { clock, store, disk, files } = await setUp();
      const [first, second] = [pdf("first"), pdf("second")];
      const [a, b] = [sha256Hex(first), sha256Hex(second)];
      await store.tx(async (tx) => files.spool(tx, a, first));
      disk.failing = true;
      expect((await rejection(files.spill(a, first))).message).toBe("the disk is full");
      await files.settled();
      expect(await rows(store)).toEqual([a]);
      expect(await files.read("outputs", a)).toEqual(first);
      disk.failing = false;

      clock.advance(SPILL_LATE_MS / 2);
      await store.tx(async (tx) => files.spool(tx, b, second));
      expect(await files.spillLate()).toBe(0);
      clock.advance(SPILL_LATE_MS / 2);
      expect(await files.spillLate()).toBe(1);
      expect(await rows(store)).toEqual([b]);
      expect(existsSync(disk.path("outputs", a))).toBe(true);
      // As at start: the process that spooled it is gone, whenever it spooled it.
      expect(await files.spillLate(0)).toBe(1);
      expect(await rows(store)).toEqual([]);
      expect(await files.read("outputs", b)).toEqual(second);
    });

    test("the same bytes spooled twice keep one row; a rolled-back transaction spools nothing; delete takes file and row", async () => {
      const { store, disk, files } = await setUp();
      const bytes = pdf("twice");
      const sha = sha256Hex(bytes);
      await store.tx(async (tx) => files.spool(tx, sha, bytes));
      await store.tx(async (tx) => files.spool(tx, sha, bytes));
      expect(await rows(store)).toEqual([sha]);
      const undone = pdf("undone");
      await rejection(
        store.tx(async (tx) => {
          files.spool(tx, sha256Hex(undone), undone);
          await tx.get("SELECT 1");
          throw new Error("the render's end failed");
        }),
      );
      expect(await rows(store)).toEqual([sha]);

      await files.delete("outputs", sha);
      expect(await rows(store)).toEqual([]);
      expect(await files.read("outputs", sha)).toBeNull();
      // Deleted once written, too.
      await store.tx(async (tx) => files.spool(tx, sha, bytes));
      await files.spill(sha, bytes);
      await files.delete("outputs", sha);
      expect(existsSync(disk.path("outputs", sha))).toBe(false);
    });
  });
}
