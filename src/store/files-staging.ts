/** store/files-staging: the temporary files an upload is streamed into (`DATA_DIR/tmp/uploads/`), hashed and limited as
 * they arrive, before a FileStore commits them (files.ts) — local disk whichever store holds the files — and the
 * durable-write helpers of the filesystem. */
import { createHash } from "node:crypto";
import { closeSync, fdatasync, fsync, fsyncSync, mkdirSync, open, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { join } from "node:path";
import { sha256Hex } from "../lib/hash";
import { randomBase62 } from "../lib/ids";

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

/** fsyncOffLoop flushes a file or a directory (its renames and creations) with the flush in the thread pool: an fsync
 * blocks for milliseconds. */
export async function fsyncOffLoop(path: string): Promise<void> {
  const fd = openSync(path, "r");
  try {
    await fsyncFd(fd);
  } finally {
    closeSync(fd);
  }
}

/** writeAll writes the whole chunk: a write to a regular file may, rarely, be short. */
export function writeAll(fd: number, chunk: Uint8Array): void {
  let offset = 0;
  while (offset < chunk.byteLength) offset += writeSync(fd, chunk, offset, chunk.byteLength - offset);
}

/** Staging owns DATA_DIR/tmp/uploads. Temporary files live inside DATA_DIR so that moving one into the disk store is
 * a rename on one filesystem, which is atomic: a reader sees no file or the whole file. */
export class Staging {
  readonly tempDir: string;
  /** Temporary files this process is writing or holds uncommitted: path → owner. The sweep spares them. */
  private readonly held = new Map<string, string>();

  constructor(dataDir: string) {
    this.tempDir = join(dataDir, "tmp", "uploads");
    mkdirSync(this.tempDir, { recursive: true });
  }

  /** hold names a new temporary file of `owner` and holds it (the sweep spares it) until it is released. */
  hold(owner: string): string {
    const path = join(this.tempDir, `${owner.replace(/[^A-Za-z0-9_-]/g, "_")}.${randomBase62(12)}.part`);
    this.held.set(path, owner);
    return path;
  }

  /** isHeldBy tells whether a temporary file of this owner is being written or waits to be committed. */
  isHeldBy(owner: string): boolean {
    for (const o of this.held.values()) if (o === owner) return true;
    return false;
  }

  /** writeTemp streams `source` into a new temporary file, hashing as it goes, never holding the whole body in memory.
   * It stops as soon as more than `maxBytes` arrive. On any failure the file is deleted before the error propagates. */
  async writeTemp(owner: string, source: AsyncIterable<Uint8Array> | null, options: WriteOptions): Promise<TempFile> {
    const path = this.hold(owner);
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

  /** writeBytes writes bytes already in memory (a printed PDF) into a new temporary file, flushed to the device. */
  async writeBytes(owner: string, bytes: Uint8Array, sha256 = sha256Hex(bytes)): Promise<TempFile> {
    const path = this.hold(owner);
    try {
      // One trip to the thread pool for the open, the write, the fsync and the close, where writeTemp makes two and
      // writes on the event loop: at concurrency 1 each trip waited ~0.3-0.5 ms for a pool thread on two cores busy
      // with Chromium (bench/side-by-side.ts --concurrency 1).
      await writeFile(path, bytes, { flag: "wx", mode: 0o600, flush: true });
      return { path, owner, bytes: bytes.byteLength, sha256 };
    } catch (e) {
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

  /** release forgets a temporary file that was moved or deleted by the store. */
  release(temp: Pick<TempFile, "path">): void {
    this.held.delete(temp.path);
  }
}

/** StagedFiles is the half of a FileStore that both stores share: uploads staged in DATA_DIR/tmp/uploads. */
export abstract class StagedFiles {
  protected readonly staging: Staging;

  constructor(dataDir: string) {
    this.staging = new Staging(dataDir);
  }

  writeTemp(owner: string, source: AsyncIterable<Uint8Array> | null, options: WriteOptions): Promise<TempFile> {
    return this.staging.writeTemp(owner, source, options);
  }

  discard(temp: TempFile): void {
    this.staging.discard(temp);
  }

  isHeldBy(owner: string): boolean {
    return this.staging.isHeldBy(owner);
  }

  sweepTemp(): number {
    return this.staging.sweepTemp();
  }
}
