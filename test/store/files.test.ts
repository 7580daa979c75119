import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createHash } from "node:crypto";
import { FileStore, SourceFailed, TooManyBytes } from "../../src/store/files";

let dir: string;
let files: FileStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "renderd-files-"));
  files = new FileStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
async function* chunks(...parts: Uint8Array[]) {
  for (const p of parts) yield p;
}
const temps = () => readdirSync(files.tempDir);

describe("FileStore", () => {
  test("writeTemp streams chunks to a temporary file inside DATA_DIR, hashing as it goes", async () => {
    const a = new TextEncoder().encode("hello ");
    const b = new TextEncoder().encode("world");
    const seen: number[] = [];
    const temp = await files.writeTemp("ast_1", chunks(a, b), { maxBytes: 11, onChunk: (c) => seen.push(c.byteLength) });
    expect(temp.bytes).toBe(11);
    expect(temp.sha256).toBe(sha(new TextEncoder().encode("hello world")));
    expect(seen).toEqual([6, 5]);
    expect(temp.path.startsWith(join(dir, "tmp", "uploads"))).toBe(true);
    expect(readFileSync(temp.path, "utf8")).toBe("hello world");
    expect(files.isHeldBy("ast_1")).toBe(true);
    // A held temporary file survives the sweep.
    expect(files.sweepTemp()).toBe(0);

    const path = files.commitAsset(temp);
    expect(path).toBe(join(dir, "assets", temp.sha256.slice(0, 2), temp.sha256.slice(2, 4), temp.sha256));
    expect(readFileSync(path, "utf8")).toBe("hello world");
    expect(files.hasAsset(temp.sha256)).toBe(true);
    expect(files.isHeldBy("ast_1")).toBe(false);
    expect(temps()).toEqual([]);
    expect(await files.openAsset(temp.sha256).text()).toBe("hello world");
  });

  test("committing the same bytes twice keeps one file; removeAsset deletes it", async () => {
    const body = new TextEncoder().encode("same");
    files.commitAsset(await files.writeTemp("a", chunks(body), { maxBytes: 4 }));
    files.commitAsset(await files.writeTemp("b", chunks(body), { maxBytes: 4 }));
    expect(files.hasAsset(sha(body))).toBe(true);
    files.removeAsset(sha(body));
    expect(files.hasAsset(sha(body))).toBe(false);
    files.removeAsset(sha(body));
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
    await expect(
      files.writeTemp("y", chunks(new Uint8Array(5)), {
        maxBytes: 100,
        onChunk: () => {
          throw new Error("no");
        },
      }),
    ).rejects.toThrow("no");
    expect(temps()).toEqual([]);
  });

  test("a null source is an empty file; discard deletes a temporary file", async () => {
    const temp = await files.writeTemp("e", null, { maxBytes: 10 });
    expect(temp.bytes).toBe(0);
    expect(temp.sha256).toBe(sha(new Uint8Array(0)));
    files.discard(temp);
    expect(existsSync(temp.path)).toBe(false);
    expect(files.isHeldBy("e")).toBe(false);
  });

  test("sweepTemp deletes what nobody holds", async () => {
    writeFileSync(join(files.tempDir, "old.part"), "x");
    mkdirSync(join(files.tempDir, "odd-dir"));
    const held = await files.writeTemp("held", chunks(new Uint8Array(3)), { maxBytes: 3 });
    expect(files.sweepTemp()).toBe(2);
    expect(temps()).toEqual([held.path.split("/").at(-1)!]);
  });

  test("sweepAssets deletes stored files that keep() refuses and ignores anything else", async () => {
    const keep = new TextEncoder().encode("keep");
    const drop = new TextEncoder().encode("drop");
    files.commitAsset(await files.writeTemp("k", chunks(keep), { maxBytes: 10 }));
    files.commitAsset(await files.writeTemp("d", chunks(drop), { maxBytes: 10 }));
    const stray = join(files.assetsDir, "README");
    writeFileSync(stray, "not an asset");
    expect(files.sweepAssets((s) => s === sha(keep))).toBe(1);
    expect(files.hasAsset(sha(keep))).toBe(true);
    expect(files.hasAsset(sha(drop))).toBe(false);
    expect(existsSync(stray)).toBe(true);
  });

  test("assetPath accepts only a sha256", () => {
    expect(() => files.assetPath("../../etc/passwd")).toThrow("not a sha256");
    expect(() => files.assetPath("A".repeat(64))).toThrow("not a sha256");
    expect(dirname(files.assetPath("ab".repeat(32)))).toBe(join(dir, "assets", "ab", "ab"));
  });
});
