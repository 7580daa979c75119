/** serve-process: `renderd serve` as a real child process on free ports with its own DATA_DIR, for the tests that signal
 * it or drive it from another program (the TUI under tmux). */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { CLI_ACTOR } from "../src/auth/actor";
import { createApiKey } from "../src/modules/api-keys/service";
import { getWorkspace } from "../src/modules/workspaces/service";
import { systemClock } from "../src/lib/clock";
import { openStore } from "../src/store/open";
import { PostgresStore } from "../src/store/postgres-store";
import type { Store } from "../src/store/store";
import type { Scope } from "../src/auth/scopes";

export const ROOT = resolve(import.meta.dir, "..");

// Ports are drawn from here up to the kernel's ephemeral range.
const LOWEST_PORT = 10_000;

/** freePort answers a TCP port free on 127.0.0.1 now, below the kernel's ephemeral range. A port the kernel hands out
 * for port 0 comes from that range, which outgoing connections draw from too: one took such a port between this check
 * and a test server's listen ("Failed to start server. Is port 40255 in use?", s3rver in CI). */
export async function freePort(): Promise<number> {
  const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
  for (let tries = 0; tries < 100; tries++) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (low! - LOWEST_PORT));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${LOWEST_PORT} and ${low}`);
}

/** bindable tells whether a server could listen on `port` of 127.0.0.1 now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = createServer();
    s.once("error", () => done(false));
    s.listen(port, "127.0.0.1", () => s.close(() => done(true)));
  });
}

/** waitFor fetches `url` until it answers at all, failing after `deadlineMs`. */
export async function waitFor(url: string, deadlineMs: number): Promise<Response> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await fetch(url);
    } catch (e) {
      if (Date.now() > until) throw e;
      await Bun.sleep(50);
    }
  }
}

/** readUntil reads a process's output until `marker` appears and answers all it read; it fails if the output ends
 * first, naming what was read. The reader stays open for the caller (to keep the pipe drained, or release it). */
export async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, marker: string): Promise<string> {
  const decoder = new TextDecoder();
  let out = "";
  while (!out.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`output ended before "${marker}": ${out}`);
    out += decoder.decode(value, { stream: true });
  }
  return out;
}

export interface ServeProcess {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  internalUrl: string;
  dataDir: string;
  internalPort: number;
  /** openStore opens the process's store as the CLI would: DATABASE_URL's when set, else DATA_DIR's; the caller closes it. */
  openStore(): Promise<Store>;
  /** makeKey creates an API key of workspace `default` in the store (another connection, as the CLI would). */
  makeKey(scopes: Scope[]): Promise<string>;
  /** call sends JSON to the public port with an API key. */
  call(path: string, key: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** stop sends SIGTERM (if still running), waits for the exit and removes DATA_DIR. */
  stop(): Promise<void>;
}

/** startServe spawns `command serve` (the compiled binary or `bun cli/main.ts`) and waits for its ports; on a new
 * DATA_DIR unless given one (a restart on what a previous process left). */
export async function startServe(command: string[], env: Record<string, string> = {}, dataDir = mkdtempSync(join(tmpdir(), "renderd-serve-"))): Promise<ServeProcess> {
  const [port, internalPort] = [await freePort(), await freePort()];
  const proc = Bun.spawn([...command, "serve", "--port", String(port), "--internal-port", String(internalPort), "--host", "127.0.0.1"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DATA_DIR: dataDir, LOG_LEVEL: "warn", RENDERD_ADMIN_PASSWORD: "serve-test-pw", RENDER_WORKERS: "1", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const url = `http://127.0.0.1:${port}`;
  const open = async (): Promise<Store> => (env.DATABASE_URL === undefined ? openStore(dataDir) : PostgresStore.open(env.DATABASE_URL));
  await waitFor(`${url}/health`, 30_000);
  return {
    proc,
    url,
    internalUrl: `http://127.0.0.1:${internalPort}`,
    dataDir,
    internalPort,
    openStore: open,
    async makeKey(scopes) {
      const store = await open();
      try {
        const ws = await getWorkspace(store, "default");
        return (await createApiKey(store, systemClock, { actor: CLI_ACTOR, requestId: "req_test" }, ws.id, { name: "test", scopes })).secret;
      } finally {
        await store.close();
      }
    },
    async call(path, key, body) {
      const res = await fetch(`${url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    async stop() {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
