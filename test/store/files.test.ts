/** files: one contract for every FileStore (store/files.ts), run against the files under DATA_DIR and against an
 * S3-compatible bucket (s3rver); then what only the disk store promises (its paths). */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { S3Client } from "bun";
import { SourceFailed, TooManyBytes, type FileArea, type FileStore, type ListedFile } from "../../src/store/files";
import { DiskFiles } from "../../src/store/files-disk";
import { S3Files } from "../../src/store/files-s3";
import { startS3, type TestBucket } from "./s3-server";

let bucket: TestBucket;
beforeAll(async () => {
  bucket = await startS3();
});
afterAll(() => bucket.stop());

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const text = (s: string) => new TextEncoder().encode(s);
async function* chunks(...parts: Uint8Array[]) {
  for (const p of parts) yield p;
}

// Each backend: how to make one over a fresh DATA_DIR, and how to put a stray object beside the store's own.
const backends: { name: string; make: (dir: string) => FileStore; stray: (dir: string, key: string) => Promise<void> }[] = [
  { name: "DiskFiles", make: (dir) => new DiskFiles(dir), stray: async (dir, key) => writeFileSync(join(dir, key), "not a file of the store") },
  {
    name: "S3Files",
    make: (dir) => new S3Files(dir, bucket.settings),
    stray: async (_dir, key) => void (await new S3Client(bucket.settings).write(key, "not a file of the store")),
  },
];

describe.each(backends)("FileStore contract: $name", ({ make, stray }) => {
  let dir: string;
  let files: FileStore;
  const temps = () => readdirSync(join(dir, "tmp", "uploads"));
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "renderd-files-"));
    files = make(dir);
    // The bucket outlives a test: each starts from an empty store.
    for (const area of ["assets", "outputs"] as const) for (const f of await listed(files, area)) await files.delete(area, f.sha256);
  });
  afterEach(async () => {
    await files.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("writeTemp streams chunks to a held local file, hashing as it goes; commit stores it under its sha256", async () => {
    const seen: number[] = [];
    const temp = await files.writeTemp("ast_1", chunks(text("hello "), text("world")), { maxBytes: 11, onChunk: (c) => seen.push(c.byteLength) });
    expect(temp).toMatchObject({ owner: "ast_1", bytes: 11, sha256: sha(text("hello world")) });
    expect(seen).toEqual([6, 5]);
    expect(readFileSync(temp.path, "utf8")).toBe("hello world");
    expect(files.isHeldBy("ast_1")).toBe(true);
    // A held temporary file survives the sweep.
    expect(files.sweepTemp()).toBe(0);
    expect(await files.stat("assets", temp.sha256)).toBeNull();

    await files.commit("assets", temp);
    expect(files.isHeldBy("ast_1")).toBe(false);
    expect(temps()).toEqual([]);
    expect(await files.stat("assets", temp.sha256)).toEqual({ size: 11 });
    expect(new TextDecoder().decode((await files.read("assets", temp.sha256))!)).toBe("hello world");
    const opened = files.open("assets", temp.sha256);
    expect(await opened.exists()).toBe(true);
    expect(await new Response(opened.body()).text()).toBe("hello world");
    // The areas are apart: the same sha256 is not an output.
    expect(await files.stat("outputs", temp.sha256)).toBeNull();
  });

  test("putMany stores every file of a batch under its sha256, new folders and old, and leaves no temporary file", async () => {
    const batch = ["%PDF-1.7 first", "%PDF-1.7 second", "%PDF-1.7 third"].map((t) => ({ sha256: sha(text(t)), bytes: text(t) }));
    await files.putMany("outputs", "output-spool", batch.slice(0, 1));
    // The first file's folder exists now; the same file again is the same file.
    await files.putMany("outputs", "output-spool", batch);
    for (const { sha256, bytes } of batch) expect(await files.read("outputs", sha256)).toEqual(bytes);
    expect(files.isHeldBy("output-spool")).toBe(false);
    expect(temps()).toEqual([]);
    expect((await listed(files, "outputs")).map((f) => f.sha256).sort()).toEqual(batch.map((f) => f.sha256).sort());
  });

  test("put stores bytes and answers their sha256; the same bytes twice are one file; delete deletes, twice is fine", async () => {
    const body = text("%PDF-1.7 same bytes");
    expect(await files.put("outputs", "rnd_1", body)).toBe(sha(body));
    expect(await files.put("outputs", "rnd_2", body)).toBe(sha(body));
    expect(await files.stat("outputs", sha(body))).toEqual({ size: body.byteLength });
    expect(temps()).toEqual([]);
    await files.delete("outputs", sha(body));
    expect(await files.stat("outputs", sha(body))).toBeNull();
    await files.delete("outputs", sha(body));
  });

  test("a missing file: read and stat answer null, open's exists() is false", async () => {
    const absent = sha(text("never stored"));
    expect(await files.read("assets", absent)).toBeNull();
    expect(await files.stat("assets", absent)).toBeNull();
    expect(await files.open("assets", absent).exists()).toBe(false);
  });

  test("more bytes than allowed: TooManyBytes at once, the rest is not read, nothing is left", async () => {
    let pulled = 0;
    async function* endless() {
      for (;;) {
        pulled += 1;
        yield new Uint8Array(1000);
      }
    }
    await expect(files.writeTemp("big", endless(), { maxBytes: 2500 })).rejects.toBeInstanceOf(TooManyBytes);
    expect(pulled).toBe(3);
    expect(temps()).toEqual([]);
    expect(files.isHeldBy("big")).toBe(false);
  });

  test("a failing source: SourceFailed and nothing left; a throwing onChunk: its error, nothing left", async () => {
    async function* broken() {
      yield new Uint8Array(10);
      throw new Error("connection reset");
    }
    await expect(files.writeTemp("x", broken(), { maxBytes: 100 })).rejects.toBeInstanceOf(SourceFailed);
    const refuse = () => {
      throw new Error("no");
    };
    await expect(files.writeTemp("y", chunks(new Uint8Array(5)), { maxBytes: 100, onChunk: refuse })).rejects.toThrow("no");
    expect(temps()).toEqual([]);
  });

  test("a null source is an empty file; discard deletes a temporary file", async () => {
    const temp = await files.writeTemp("e", null, { maxBytes: 10 });
    expect(temp).toMatchObject({ bytes: 0, sha256: sha(new Uint8Array(0)) });
    files.discard(temp);
    expect(existsSync(temp.path)).toBe(false);
    expect(files.isHeldBy("e")).toBe(false);
  });

  test("sweepTemp deletes what nobody holds", async () => {
    writeFileSync(join(dir, "tmp", "uploads", "old.part"), "x");
    mkdirSync(join(dir, "tmp", "uploads", "odd-dir"));
    const held = await files.writeTemp("held", chunks(new Uint8Array(3)), { maxBytes: 3 });
    expect(files.sweepTemp()).toBe(2);
    expect(temps()).toEqual([held.path.split("/").at(-1)!]);
  });

  test("list answers the stored files of an area with when each was written, and nothing else", async () => {
    const one = text("one");
    const two = text("two");
    const before = Date.now() - 60_000;
    await files.commit("assets", await files.writeTemp("k", chunks(one), { maxBytes: 10 }));
    await files.commit("assets", await files.writeTemp("d", chunks(two), { maxBytes: 10 }));
    await files.put("outputs", "o", two);
    await stray(dir, "assets/README");
    const assets = await listed(files, "assets");
    expect(assets.map((f) => f.sha256).sort()).toEqual([sha(one), sha(two)].sort());
    for (const f of assets) expect(f.modifiedAt.getTime()).toBeGreaterThan(before);
    expect((await listed(files, "outputs")).map((f) => f.sha256)).toEqual([sha(two)]);
  });

  test("only a sha256 names a file (no path tricks)", async () => {
    expect(() => files.open("assets", "../../etc/passwd")).toThrow("not a sha256");
    await expect(files.stat("assets", "A".repeat(64))).rejects.toThrow("not a sha256");
  });
});

describe("DiskFiles", () => {
  test("putMany: a batch that cannot be written fails with the reason and keeps no temporary file; one cut by close() fails too; the next batch is written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-files-"));
    const files = new DiskFiles(dir);
    try {
      const good = { sha256: sha(text("good")), bytes: text("good") };
      const blocked = { sha256: sha(text("blocked")), bytes: text("blocked") };
      // A file where the blocked PDF's folder should be: its rename cannot happen.
      const folder = dirname(files.path("outputs", blocked.sha256));
      mkdirSync(dirname(folder), { recursive: true });
      writeFileSync(folder, "in the way");
      const failure = await files.putMany("outputs", "output-spool", [good, blocked]).then(
        () => null,
        (e: Error) => e,
      );
      expect(failure?.message).toContain("EEXIST");
      expect(readdirSync(join(dir, "tmp", "uploads"))).toEqual([]);
      expect(files.isHeldBy("output-spool")).toBe(false);
      rmSync(folder);
      await files.putMany("outputs", "output-spool", [good, blocked]);
      expect(readFileSync(files.path("outputs", blocked.sha256), "utf8")).toBe("blocked");
      expect(readFileSync(files.path("outputs", good.sha256), "utf8")).toBe("good");
      // Closed while a batch is on its way: the batch fails, and the next one starts a writer again.
      const cut = files.putMany("outputs", "output-spool", [{ sha256: sha(text("cut")), bytes: text("cut") }]).then(
        () => null,
        (e: Error) => e,
      );
      await files.close();
      expect((await cut)?.message).toBe("the file store was closed while a batch was being written");
      const after = { sha256: sha(text("after")), bytes: text("after") };
      await files.putMany("outputs", "output-spool", [after]);
      expect(readFileSync(files.path("outputs", after.sha256), "utf8")).toBe("after");
    } finally {
      await files.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });


  test("keeps a file at DATA_DIR/<area>/ab/cd/<sha256>, moved in from the staging folder inside DATA_DIR", async () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-files-"));
    try {
      const files = new DiskFiles(dir);
      const temp = await files.writeTemp("ast_1", chunks(text("hello")), { maxBytes: 5 });
      expect(temp.path.startsWith(join(dir, "tmp", "uploads"))).toBe(true);
      await files.commit("assets", temp);
      const path = files.path("assets", temp.sha256);
      expect(path).toBe(join(dir, "assets", temp.sha256.slice(0, 2), temp.sha256.slice(2, 4), temp.sha256));
      expect(dirname(files.path("outputs", "ab".repeat(32)))).toBe(join(dir, "outputs", "ab", "ab"));
      expect(readFileSync(path, "utf8")).toBe("hello");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** listed answers every file `list` finds in `area`, all pages together. */
async function listed(files: FileStore, area: FileArea): Promise<ListedFile[]> {
  const all: ListedFile[] = [];
  for await (const page of files.list(area)) all.push(...page);
  return all;
}
