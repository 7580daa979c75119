// store/files-disk-batch.worker: the disk store's batch writer, run in a thread of its own by files-disk-batch.ts. It
// is started from its text (a Worker given a path finds its file in tests but not inside the compiled binary), so it
// is plain JavaScript and imports nothing of renderd's.
//
// A batch of files reaches the disk in four steps: every temporary file is written, one syncfs(2) flushes them all,
// each is renamed to its content address, and a second syncfs(2) flushes the renames. A name therefore never points at
// bytes a power cut could lose, as with put's two fsyncs per file, and the batch answers only once all of it is durable.
import { dlopen } from "bun:ffi";
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";

const libc = dlopen("libc.so.6", { syncfs: { args: ["i32"], returns: "i32" } });

/** syncFileSystem flushes every change of the filesystem that holds `path`; syncfs reports a failed write-back since
 * Linux 5.8. */
function syncFileSystem(path) {
  const fd = openSync(path, "r");
  try {
    if (libc.symbols.syncfs(fd) !== 0) throw new Error(`flushing the filesystem of ${path} (syncfs) failed`);
  } finally {
    closeSync(fd);
  }
}

function writeFile(path, bytes) {
  const fd = openSync(path, "wx", 0o600);
  try {
    let offset = 0;
    while (offset < bytes.byteLength) offset += writeSync(fd, bytes, offset, bytes.byteLength - offset);
  } finally {
    closeSync(fd);
  }
}

// A message: { id, root, files: [{ temp, target, folder, bytes }] }, `folder` set when it may not exist yet. The
// answer: { id } once durable, or { id, error } with the temporary files deleted (a file already renamed stays: its
// bytes are whole, and the caller keeps its own copy until a batch succeeds).
self.onmessage = ({ data: { id, root, files } }) => {
  try {
    for (const file of files) writeFile(file.temp, file.bytes);
    syncFileSystem(root);
    for (const file of files) {
      if (file.folder) mkdirSync(file.folder, { recursive: true });
      renameSync(file.temp, file.target);
    }
    syncFileSystem(root);
    postMessage({ id });
  } catch (err) {
    for (const file of files) rmSync(file.temp, { force: true });
    postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
};
