/** backup/archive: a backup is a gzip-compressed tar (`tar -tzf` lists it); entries are hashed as they stream in or out,
 * so no file is ever held whole in memory. */
import { createHash } from "node:crypto";
import { closeSync, createReadStream, createWriteStream, existsSync, fdatasyncSync, fstatSync, mkdirSync, openSync } from "node:fs";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import { extract, pack, type Pack } from "tar-stream";
import { writeAll } from "../store/files-staging";
import { isEntryName, MANIFEST_ENTRY, type ManifestFile } from "./manifest";

/** OnBytes is told how many bytes of the work are done so far, out of `total` (a progress bar's feed). */
export type OnBytes = (done: number, total: number) => void;

// Far above any real manifest (a million files is about 150 MB of JSON would be absurd; this is a guard, not a limit).
const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;

/** ArchiveWriter streams entries into a new .tar.gz file created with mode 0600 (it holds the secret key). */
export class ArchiveWriter {
  private readonly tar: Pack = pack();
  private readonly done: Promise<void>;

  constructor(private readonly path: string) {
    // The write stream owns its descriptor: sharing one with it would risk closing a number reused meanwhile.
    this.done = pipeline(this.tar, createGzip(), createWriteStream(path, { flags: "wx", mode: 0o600 }));
    // The pipeline's failure is reported by whichever step waits next; until then it must not go unhandled.
    this.done.catch(() => undefined);
  }

  // A full disk breaks the pipeline, and a step waiting on the tar (an entry's end, a drain) would wait forever.
  private unlessBroken<T>(step: Promise<T>): Promise<T> {
    return Promise.race([step, this.done.then(() => step)]);
  }

  /** addBytes adds an entry held in memory (the manifest, the key) and answers its record. */
  async addBytes(name: string, bytes: Uint8Array): Promise<ManifestFile> {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    await this.unlessBroken(new Promise<void>((resolve, reject) => this.tar.entry({ name, size: bytes.byteLength, mode: 0o600 }, bytes, (e) => (e ? reject(e) : resolve()))));
    return { path: name, size: bytes.byteLength, sha256 };
  }

  /** addFile streams an open file into an entry, hashing it on the way; `fd` is closed. The size is taken once, from the
   * open file: stored files are immutable (written elsewhere, then renamed in), and an unlinked file stays readable. */
  async addFile(name: string, fd: number, onChunk: (bytes: number) => void): Promise<ManifestFile> {
    const size = fstatSync(fd).size;
    const hash = createHash("sha256");
    let entryDone!: (e?: Error | null) => void;
    const written = new Promise<void>((resolve, reject) => (entryDone = (e) => (e ? reject(e) : resolve())));
    const entry = this.tar.entry({ name, size, mode: 0o600 }, entryDone);
    if (size === 0) closeSync(fd);
    else
      for await (const chunk of createReadStream("", { fd, start: 0, end: size - 1, autoClose: true }) as AsyncIterable<Buffer>) {
        hash.update(chunk);
        onChunk(chunk.byteLength);
        if (!entry.write(chunk)) await this.unlessBroken(once(entry, "drain"));
      }
    entry.end(null);
    await this.unlessBroken(written);
    return { path: name, size, sha256: hash.digest("hex") };
  }

  /** finish writes the tar's end and flushes the file to disk. */
  async finish(): Promise<void> {
    this.tar.finalize();
    await this.done;
    const fd = openSync(this.path, "r");
    try {
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** abandon stops writing after a failure (the caller removes the file). */
  abandon(): void {
    this.tar.destroy();
  }
}

/** ReadResult is what streaming through an archive found: the manifest's text and each other entry's size and sha256. */
export interface ReadResult {
  manifestText: string | null;
  seen: Map<string, ManifestFile>;
}

/**
 * readArchive streams through a .tar.gz once: every entry name is checked (isEntryName) before anything is written,
 * each entry is hashed, and an entry for which `targetOf` answers a path is written there (mode 0600, flushed).
 * A damaged gzip or tar throws one line.
 */
export async function readArchive(path: string, targetOf: (name: string) => string | null, onBytes?: OnBytes): Promise<ReadResult> {
  if (!existsSync(path)) throw new Error(`${path} does not exist: name a backup archive made by renderd backup create.`);
  const file = createReadStream(path);
  const total = fstatSync((await once(file, "open"))[0] as number).size;
  const tar = extract();
  const seen = new Map<string, ManifestFile>();
  let manifestText: string | null = null;
  const source = pipeline(file, createGunzip(), tar);
  const consume = (async () => {
    try {
      for await (const entry of tar) {
        const { name, type } = entry.header;
        if (type !== "file" || !isEntryName(name)) throw new Error(`the archive holds ${type} ${JSON.stringify(name)}, which no renderd backup holds: refused.`);
        if (seen.has(name) || (name === MANIFEST_ENTRY && manifestText !== null)) throw new Error(`the archive holds ${name} twice: refused.`);
        const target = name === MANIFEST_ENTRY ? null : targetOf(name);
        if (target) mkdirSync(dirname(target), { recursive: true });
        const fd = target ? openSync(target, "wx", 0o600) : null;
        const hash = createHash("sha256");
        const manifest: Buffer[] = [];
        let size = 0;
        try {
          for await (const chunk of entry as AsyncIterable<Buffer>) {
            size += chunk.byteLength;
            if (name === MANIFEST_ENTRY) {
              if (size > MAX_MANIFEST_BYTES) throw new Error("manifest.json is implausibly large: the archive is damaged.");
              manifest.push(chunk);
              continue;
            }
            hash.update(chunk);
            if (fd !== null) writeAll(fd, chunk);
            onBytes?.(file.bytesRead, total);
          }
          if (fd !== null) fdatasyncSync(fd);
        } finally {
          if (fd !== null) closeSync(fd);
        }
        if (name === MANIFEST_ENTRY) manifestText = Buffer.concat(manifest).toString("utf8");
        else seen.set(name, { path: name, size, sha256: hash.digest("hex") });
      }
    } catch (e) {
      // Destroyed without our error, so that `source` fails with a "premature close" of its own (below).
      tar.destroy();
      throw e;
    }
  })();
  const [read, streamed] = await Promise.allSettled([consume, source]);
  // A broken gzip or tar fails both with the same error; our own refusal (a bad name, a write that failed: a full
  // disk) fails `read` alone, and it says more than the "premature close" it causes in `source`.
  if (read.status === "rejected" && (streamed.status === "fulfilled" || read.reason !== streamed.reason)) throw read.reason;
  if (streamed.status === "rejected") throw new Error(`the archive is damaged: ${(streamed.reason as Error).message}.`);
  return { manifestText, seen };
}

/** joinEntry answers where an archive entry goes inside a folder (names are checked by isEntryName first). */
export function joinEntry(dir: string, name: string): string {
  return join(dir, ...name.split("/"));
}
