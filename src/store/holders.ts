/** store/holders: which other processes have a store file open — how `renderd migrate --to-postgres` sees a `renderd
 * serve` still writing to DATA_DIR (rows it writes after the copy would be lost). Linux's /proc; processes of other
 * users that this one may not inspect are not seen. */
import { readdirSync, readlinkSync, realpathSync } from "node:fs";

/** storeHolders answers the ids of the processes other than this one holding `path` (or its -wal/-shm files) open. */
export function storeHolders(path: string, proc = "/proc"): number[] {
  const target = realpathSync(path);
  const names = new Set([target, `${target}-wal`, `${target}-shm`]);
  const holders: number[] = [];
  for (const entry of list(proc)) {
    const pid = Number(entry);
    if (!/^\d+$/.test(entry) || pid === process.pid) continue;
    const fds = `${proc}/${entry}/fd`;
    if (list(fds).some((fd) => names.has(link(`${fds}/${fd}`)))) holders.push(pid);
  }
  return holders;
}

// A process may end, or hide its descriptors, between listing and reading: it holds nothing we can see.
function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function link(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}
