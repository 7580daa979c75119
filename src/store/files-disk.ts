/** store/files-disk: the FileStore of one appliance — files under DATA_DIR (`assets/`, `outputs/`), written durably
 * (the file, then its folder's rename, are synced: DESIGN.md 1 synchronous=FULL). */
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { mkdir, rename } from "node:fs/promises";
import { dirname, join } from "node:path";
import { contentKey, isSha256, LIST_PAGE, type FileArea, type FileBytes, type FileStore, type ListedFile, type StoredFile } from "./files";
import { BatchWriter } from "./files-disk-batch";
import { fsyncOffLoop, StagedFiles, type TempFile } from "./files-staging";

/** DiskFiles keeps the files of both areas under DATA_DIR, beside the SQLite store. */
export class DiskFiles extends StagedFiles implements FileStore {
  /** The two-level folders known to exist (sweep empties them, never removes them). */
  private readonly folders = new Set<string>();
  private readonly batchWriter = new BatchWriter();

  constructor(private readonly dataDir: string) {
    super(dataDir);
    for (const area of ["assets", "outputs"] as const) mkdirSync(join(dataDir, area), { recursive: true });
  }

  /** path answers where the file with this sha256 lives on disk (tests and backups read DATA_DIR directly). */
  path(area: FileArea, sha256: string): string {
    return join(this.dataDir, contentKey(area, sha256));
  }

  async commit(area: FileArea, temp: TempFile): Promise<void> {
    const target = this.path(area, temp.sha256);
    const folder = dirname(target);
    // Both in the thread pool: on a busy disk a mkdir or a rename waits milliseconds for the journal (the event loop
    // stood in mkdirSync ~7 ms per render at concurrency 8, docs/performance.md "Close to the floor: second pass").
    if (!this.folders.has(folder)) {
      await mkdir(folder, { recursive: true });
      this.folders.add(folder);
    }
    // Identical bytes may already be there: the rename replaces them, atomically.
    await rename(temp.path, target);
    this.staging.release(temp);
    // The rename itself must survive a power cut, like the row that will point at it; the caller awaits this before
    // writing that row, without holding the event loop.
    await fsyncOffLoop(folder);
  }

  async put(area: FileArea, owner: string, bytes: Uint8Array, sha256?: string): Promise<string> {
    const temp = await this.staging.writeBytes(owner, bytes, sha256);
    await this.commit(area, temp);
    return temp.sha256;
  }

  async putMany(area: FileArea, owner: string, files: readonly FileBytes[]): Promise<void> {
    const batch = files.map(({ sha256, bytes }) => {
      const target = this.path(area, sha256);
      const folder = dirname(target);
      return { temp: this.staging.hold(owner), target, folder: this.folders.has(folder) ? undefined : folder, bytes };
    });
    try {
      await this.batchWriter.write(this.dataDir, batch);
      for (const { folder } of batch) if (folder) this.folders.add(folder);
    } finally {
      for (const { temp } of batch) this.staging.release({ path: temp });
    }
  }

  open(area: FileArea, sha256: string): StoredFile {
    const file = Bun.file(this.path(area, sha256));
    // A BunFile body is sent with its length, straight from the file.
    return { exists: () => file.exists(), bytes: () => file.bytes(), body: () => file };
  }

  async read(area: FileArea, sha256: string): Promise<Uint8Array | null> {
    const file = Bun.file(this.path(area, sha256));
    return (await file.exists()) ? await file.bytes() : null;
  }

  async stat(area: FileArea, sha256: string): Promise<{ size: number } | null> {
    const path = this.path(area, sha256);
    try {
      const s = statSync(path);
      return s.isFile() ? { size: s.size } : null;
    } catch {
      return null;
    }
  }

  async delete(area: FileArea, sha256: string): Promise<void> {
    rmSync(this.path(area, sha256), { force: true });
  }

  async close(): Promise<void> {
    this.batchWriter.close();
  }

  async *list(area: FileArea): AsyncIterable<ListedFile[]> {
    const root = join(this.dataDir, area);
    let page: ListedFile[] = [];
    for (const a of readdirSync(root)) {
      const dirA = join(root, a);
      if (!/^[a-f0-9]{2}$/.test(a) || !statSync(dirA).isDirectory()) continue;
      for (const b of readdirSync(dirA)) {
        const dirB = join(dirA, b);
        if (!/^[a-f0-9]{2}$/.test(b) || !statSync(dirB).isDirectory()) continue;
        for (const name of readdirSync(dirB)) {
          if (!isSha256(name) || name.slice(0, 4) !== a + b) continue;
          // Deleted since the folder was read: not stored any more.
          const s = statSync(join(dirB, name), { throwIfNoEntry: false });
          if (!s?.isFile()) continue;
          page.push({ sha256: name, modifiedAt: s.mtime });
          if (page.length === LIST_PAGE) {
            yield page;
            page = [];
          }
        }
      }
    }
    if (page.length) yield page;
  }
}
