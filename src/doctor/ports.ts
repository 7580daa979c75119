/** doctor/ports: whether serve could listen on a port, and whether the renderd already listening is this DATA_DIR's. */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";

/** listenError tries to listen on hostname:port and stops at once; answers null when it could, else the error code. */
export function listenError(hostname: string, port: number): string | null {
  try {
    Bun.listen({ hostname, port, socket: { data() {} } }).stop(true);
    return null;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
  }
}

/** renderdAnswers tells whether a renderd answers GET /health/live on INTERNAL_PORT (127.0.0.1 only: it runs on this host). */
export async function renderdAnswers(internalPort: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${internalPort}/health/live`, { signal: AbortSignal.timeout(2000) });
    return res.ok && ((await res.json()) as { status?: unknown }).status === "ok";
  } catch {
    return false;
  }
}

// The sockets listening on a TCP port, as /proc/<pid>/fd links name them. A line of /proc/net/tcp{,6} reads
// "sl local_address rem_address st … inode", the port in hex after the colon; state 0A is LISTEN.
function listeningSockets(port: number): Set<string> {
  const sockets = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && f[3] === "0A" && parseInt(f[1].split(":")[1] ?? "", 16) === port) sockets.add(`socket:[${f[9]}]`);
    }
  }
  return sockets;
}

// What a process's descriptors point at; null when they cannot be read (another user's process).
function openFiles(pid: string): string[] | null {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return null;
  }
  return fds.flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
    } catch {
      return []; // closed meanwhile
    }
  });
}

/** listenerHoldsStore tells whether the process listening on `port` has DATA_DIR/renderd.db open: true or false when it
 * can be seen in /proc, null when it cannot (a process of another user). */
export function listenerHoldsStore(port: number, dataDir: string): boolean | null {
  const sockets = listeningSockets(port);
  let store: string;
  try {
    store = join(realpathSync(dataDir), "renderd.db");
  } catch {
    return false; // no DATA_DIR: whatever listens does not serve it
  }
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const files = openFiles(pid);
    if (files?.some((f) => sockets.has(f))) return files.includes(store);
  }
  return null;
}
