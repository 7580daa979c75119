/**
 * tempdir: the one folder renderd's browsers keep temporary files in — `$TMPDIR/renderd-<uid>/<pid>-<start>/`, one per
 * renderd process — removed when the process exits; the folders of processes that no longer run (a kill -9) are swept
 * when a process first uses it. See docs/pool.md "Temporary files".
 *
 * The owner is named by pid and start time (clock ticks after boot, /proc/<pid>/stat): a pid that a new process has
 * reused is not the owner, and two renderd processes on one host never sweep each other's folder.
 */
import { lstatSync, mkdirSync, readdirSync, rmdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandLine, isAlive, listProcesses, readProcess } from "./browser";

const OWNED = /^(\d+)-(\d+)$/;
const swept = new Set<string>();

/** defaultTempBase answers `$TMPDIR/renderd-<uid>`: scratch space, so not under DATA_DIR (which is backed up). */
export function defaultTempBase(): string {
  return join(tmpdir(), `renderd-${process.getuid?.() ?? "user"}`);
}

/** processTempDir answers this process's folder under `base`, creating it; the first call per base also sweeps the
 * folders of dead processes and removes this one when the process exits. */
export function processTempDir(base = defaultTempBase()): string {
  ownFolder(base);
  const self = readProcess(process.pid);
  const dir = join(base, `${process.pid}-${self?.startTicks ?? 0}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!swept.has(base)) {
    swept.add(base);
    sweepTempDirs(base);
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return dir;
}

/** releaseTempDir removes this process's folder once nothing is left in it (another pool of the process may still use it). */
export function releaseTempDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty (another pool's browser), or already gone
  }
}

/** sweepTempDirs removes the folders under `base` whose owning process no longer runs, and answers their names. */
export function sweepTempDirs(base: string): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(base)) {
    const owner = OWNED.exec(name);
    if (!owner) continue;
    const p = readProcess(Number(owner[1]));
    if (p && p.state !== "Z" && p.state !== "X" && p.startTicks === Number(owner[2])) continue;
    const dir = join(base, name);
    endStragglers(dir);
    rmSync(dir, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * endStragglers kills what a dead renderd's browsers left running in `dir` — found by the folder in their arguments
 * (the browser's marker and profile, its crash handlers' database) — and waits up to 2 s for them to go: measured, a
 * browser that outlives its renderd by a moment writes its profile again after the folder is removed.
 */
function endStragglers(dir: string): void {
  // Chromium's processes only ("chromium", "chrome_crashpad…"): never, say, a shell that happens to name the folder.
  const stragglers = listProcesses().filter(
    (p) => p.name.startsWith("chrom") && p.pid !== process.pid && commandLine(p.pid).some((arg) => arg.includes(`${dir}/`)),
  );
  for (const p of stragglers) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  const giveUpAt = performance.now() + 2_000;
  while (stragglers.some((p) => isAlive(p.pid)) && performance.now() < giveUpAt) Bun.sleepSync(20);
}

/** ownFolder creates `base` (mode 0700) or checks that the one there is a folder of this user: in a shared /tmp another
 * user could have made it first, to read or plant the browsers' profiles. */
function ownFolder(base: string): void {
  mkdirSync(base, { recursive: true, mode: 0o700 });
  const st = lstatSync(base);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0)
    throw new Error(`${base} is not a private folder of this user; remove it or set TMPDIR to another folder.`);
}
