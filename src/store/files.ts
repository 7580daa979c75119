/** store/files: the one module that touches files under DATA_DIR (DESIGN.md 1 and 6) — the content-addressed asset
 * store `assets/ab/cd/<sha256>`, the render outputs `outputs/ab/cd/<sha256>` and the temporary files being written
 * `tmp/uploads/`. Swapping the
 * embedded store for object storage later means replacing this module, nothing above it. */
import { createHash } from "node:crypto";
import { closeSync, fdatasync, fsync, fsyncSync, mkdirSync, open, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { promisify } from "node:util";
import { dirname, join } from "node:path";
import type { BunFile } from "bun";
import { randomBase62 } from "../lib/ids";

const SHA256 = /^[a-f0-9]{64}$/;

/** TooManyBytes: the source sent more than `maxBytes`; writing stopped at once and the temporary file is gone. */
export class TooManyBytes extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes arrived`);
    this.name = "TooManyBytes";
  }
}

/** SourceFailed: reading the source failed (the client went away mid-body); the temporary file is gone. */
export class SourceFailed extends Error {
  constructor(cause: unknown) {
    super(`the source failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = "SourceFailed";
  }
}

/** TempFile is a fully written temporary file, held until it is committed or discarded. */
export interface TempFile {
  path: string;
  owner: string;
  bytes: number;
  /** Lowercase hex sha256 of the bytes written. */
  sha256: string;
}

export interface WriteOptions {
  /** The source is refused (TooManyBytes) as soon as more than this many bytes arrive. */
  maxBytes: number;
  /** Sees every chunk before it is written, in order; throwing aborts the write and deletes the file. */
  onChunk?: (chunk: Uint8Array) => void;
}

/** fsyncDir makes the renames and creations inside `dir` durable. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const datasync = promisify(fdatasync);
const fsyncFd = promisify(fsync);
const openFd = promisify(open);

/** fsyncDirOffLoop is fsyncDir with the flush in the thread pool: a directory fsync blocks for milliseconds. */
async function fsyncDirOffLoop(dir: string): Promise<void> {
  const fd = openSync(dir, "r");
  try {
    await fsyncFd(fd);
  } finally {
    closeSync(fd);
  }
}

/** contentPath answers where the file with this sha256 lives under `root`: `<root>/ab/cd/<sha256>` (content-addressed);
 * anything but a sha256 is refused (no path tricks). */
export function contentPath(root: string, sha256: string): string {
  if (!SHA256.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
  return join(root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** writeAll writes the whole chunk: a write to a regular file may, rarely, be short. */
export function writeAll(fd: number, chunk: Uint8Array): void {
  let offset = 0;
  while (offset < chunk.byteLength) offset += writeSync(fd, chunk, offset, chunk.byteLength - offset);
}

/** FileStore owns DATA_DIR/assets, DATA_DIR/outputs and DATA_DIR/tmp/uploads. Temporary files live inside DATA_DIR so that moving one
 * into the store is a rename on one filesystem, which is atomic: a reader sees no file or the whole file. */
export class FileStore {
  readonly assetsDir: string;
  readonly outputsDir: string;
  readonly tempDir: string;
  /** Temporary files this process is writing or holds uncommitted: path → owner. The sweep spares them. */
  private readonly held = new Map<string, string>();

  constructor(dataDir: string) {
    this.assetsDir = join(dataDir, "assets");
    this.outputsDir = join(dataDir, "outputs");
    this.tempDir = join(dataDir, "tmp", "uploads");
    mkdirSync(this.assetsDir, { recursive: true });
    mkdirSync(this.outputsDir, { recursive: true });
    mkdirSync(this.tempDir, { recursive: true });
  }

  /** assetPath answers where the bytes with this sha256 live; anything but a sha256 is refused (no path tricks). */
  assetPath(sha256: string): string {
    return contentPath(this.assetsDir, sha256);
  }

  /** outputPath answers where the render output with this sha256 lives (same rules as assetPath). */
  outputPath(sha256: string): string {
    return contentPath(this.outputsDir, sha256);
  }

  /** openOutput answers the stored render output with this sha256, to stream from disk (it may not exist). */
  openOutput(sha256: string): BunFile {
    return Bun.file(this.outputPath(sha256));
  }

  /** writeOutput stores a render output durably under its sha256 and answers the sha256. */
  async writeOutput(owner: string, bytes: Uint8Array): Promise<string> {
    const temp = await this.writeTemp(owner, once(bytes), { maxBytes: bytes.byteLength });
    const target = this.outputPath(temp.sha256);
    this.move(temp, target);
    // Durable before the render's final state is written (the caller awaits this), without holding the event loop.
    await fsyncDirOffLoop(dirname(target));
    return temp.sha256;
  }

  /** removeOutput deletes the stored render output with this sha256, if any. */
  removeOutput(sha256: string): void {
    rmSync(this.outputPath(sha256), { force: true });
  }

  /** openAsset answers the stored file with this sha256, to stream from disk (it may not exist). */
  openAsset(sha256: string): BunFile {
    return Bun.file(this.assetPath(sha256));
  }

  /** readAsset answers the whole stored file with this sha256 at once, for a print job that embeds it (it must exist). */
  readAsset(sha256: string): Uint8Array {
    return readFileSync(this.assetPath(sha256));
  }

  /** hasAsset tells whether the bytes with this sha256 are stored. */
  hasAsset(sha256: string): boolean {
    try {
      return statSync(this.assetPath(sha256)).isFile();
    } catch {
      return false;
    }
  }

  /** isHeldBy tells whether a temporary file of this owner is being written or waits to be committed. */
  isHeldBy(owner: string): boolean {
    for (const o of this.held.values()) if (o === owner) return true;
    return false;
  }

  /** writeTemp streams `source` into a new temporary file, hashing as it goes, never holding the whole body in memory.
   * It stops as soon as more than `maxBytes` arrive. On any failure the file is deleted before the error propagates. */
  async writeTemp(owner: string, source: AsyncIterable<Uint8Array> | null, options: WriteOptions): Promise<TempFile> {
    const path = join(this.tempDir, `${owner.replace(/[^A-Za-z0-9_-]/g, "_")}.${randomBase62(12)}.part`);
    this.held.set(path, owner);
    const hash = createHash("sha256");
    let bytes = 0;
    let fd: number | undefined;
    try {
      // In the thread pool: creating a file waits for the filesystem's journal while another render's fsync commits
      // it (ext4), which held the event loop for milliseconds per render under load (docs/performance.md).
      fd = await openFd(path, "wx", 0o600);
      if (source) {
        const chunks = source[Symbol.asyncIterator]();
        for (;;) {
          let next: IteratorResult<Uint8Array>;
          try {
            next = await chunks.next();
          } catch (e) {
            throw new SourceFailed(e);
          }
          if (next.done) break;
          const chunk = next.value;
          bytes += chunk.byteLength;
          if (bytes > options.maxBytes) {
            // Stop reading: the rest of the body is never pulled off the socket.
            await chunks.return?.().catch(() => undefined);
            throw new TooManyBytes(options.maxBytes);
          }
          hash.update(chunk);
          options.onChunk?.(chunk);
          // Written synchronously, into the page cache: each chunk is gone before the next is read, so Bun hands over
          // small chunks instead of piling up megabytes while an asynchronous write waits in the thread pool
          // (bench/upload.ts: about 10 MB less peak memory for a 50 MB upload).
          writeAll(fd, chunk);
        }
      }
      // The upload is acknowledged once committed, so its bytes must be on disk first (DESIGN.md 1: synchronous=FULL).
      // The slow part, flushing to the device, runs off the event loop.
      await datasync(fd);
      closeSync(fd);
      fd = undefined;
      return { path, owner, bytes, sha256: hash.digest("hex") };
    } catch (e) {
      if (fd !== undefined) closeSync(fd);
      rmSync(path, { force: true });
      this.held.delete(path);
      throw e;
    }
  }

  /** discard deletes a temporary file that will not be committed. */
  discard(temp: TempFile): void {
    rmSync(temp.path, { force: true });
    this.held.delete(temp.path);
  }

  /** commitAsset moves a temporary file into the store under its sha256 (synchronous, so a caller can pair it with a
   * transaction in one turn of the event loop). Identical bytes may already be there: the rename replaces them. */
  commitAsset(temp: TempFile): string {
    return this.commit(temp, this.assetPath(temp.sha256));
  }

  private commit(temp: TempFile, target: string): string {
    this.move(temp, target);
    // The rename itself must survive a power cut, like the row that will point at it.
    fsyncDir(dirname(target));
    return target;
  }

  private move(temp: TempFile, target: string): void {
    mkdirSync(dirname(target), { recursive: true });
    renameSync(temp.path, target);
    this.held.delete(temp.path);
  }

  /** removeAsset deletes the stored bytes with this sha256, if any (synchronous, see commitAsset). */
  removeAsset(sha256: string): void {
    rmSync(this.assetPath(sha256), { force: true });
  }

  /** sweepTemp deletes every temporary upload file that this process is not writing or holding (left by a crash or a
   * previous process) and answers how many it deleted. */
  sweepTemp(): number {
    let removed = 0;
    for (const name of readdirSync(this.tempDir)) {
      const path = join(this.tempDir, name);
      if (this.held.has(path)) continue;
      rmSync(path, { force: true, recursive: true });
      removed += 1;
    }
    return removed;
  }

  /** sweepAssets deletes stored files whose sha256 `keep` refuses (bytes no asset points at any more, left by a crash
   * between a rename and its transaction) and answers how many it deleted. It walks the whole store: run it at start. */
  sweepAssets(keep: (sha256: string) => boolean): number {
    let removed = 0;
    for (const a of readdirSync(this.assetsDir)) {
      const dirA = join(this.assetsDir, a);
      if (!/^[a-f0-9]{2}$/.test(a) || !statSync(dirA).isDirectory()) continue;
      for (const b of readdirSync(dirA)) {
        const dirB = join(dirA, b);
        if (!/^[a-f0-9]{2}$/.test(b) || !statSync(dirB).isDirectory()) continue;
        for (const name of readdirSync(dirB)) {
          if (!SHA256.test(name) || name.slice(0, 4) !== a + b || keep(name)) continue;
          rmSync(join(dirB, name), { force: true });
          removed += 1;
        }
      }
    }
    return removed;
  }
}
