import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storeHolders } from "../../src/store/holders";

const root = mkdtempSync(join(tmpdir(), "renderd-holders-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A /proc of links, as Linux shows each process's open files: /proc/<pid>/fd/<n> -> the file.
function processHolding(proc: string, pid: string, ...files: string[]): void {
  mkdirSync(join(proc, pid, "fd"), { recursive: true });
  files.forEach((f, i) => symlinkSync(f, join(proc, pid, "fd", String(i + 3))));
}

test("storeHolders names the other processes holding the store, its WAL or its shared memory, and no one else", () => {
  const store = join(root, "renderd.db");
  const other = join(root, "other.db");
  for (const f of [store, `${store}-wal`, `${store}-shm`, other]) writeFileSync(f, "");
  const proc = join(root, "proc");
  processHolding(proc, "101", other, store);
  processHolding(proc, "102", `${store}-wal`);
  processHolding(proc, "103", `${store}-shm`);
  processHolding(proc, "104", other);
  processHolding(proc, String(process.pid), store);
  // A process whose descriptors may not be read (another user's), and an entry that is no process.
  mkdirSync(join(proc, "105"));
  processHolding(proc, "self", store);
  mkdirSync(join(proc, "sys"));
  expect(storeHolders(store, proc).sort()).toEqual([101, 102, 103]);
  expect(storeHolders(other, proc).sort()).toEqual([101, 104]);
});

test("storeHolders sees a real process holding the file, through /proc", async () => {
  const store = join(root, "held.db");
  writeFileSync(store, "");
  const child = Bun.spawn(["sleep", "30"], { stdin: Bun.file(store) });
  try {
    // The file is the child's stdin from its first instruction on.
    expect(storeHolders(store)).toContain(child.pid);
  } finally {
    child.kill();
    await child.exited;
  }
});
