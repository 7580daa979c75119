/** bench/proxy: bench/delay-proxy.c compiled and run — a database on another host, by added round trip — for
 * bench/cluster.ts and bench/round-trip.ts. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Proxy is one running delay proxy: its port and pid, and freeze/thaw of its link. */
export interface Proxy {
  port: number;
  pid: number;
  /** url answers `databaseUrl` pointed at this proxy. */
  url(databaseUrl: string): string;
  freeze(): void;
  thaw(): void;
  stop(): void;
}

/** buildProxy compiles the proxy into a temporary directory and answers its path (removeProxy takes it away). */
export function buildProxy(): string {
  const out = join(mkdtempSync(join(tmpdir(), "renderd-proxy-")), "delay-proxy");
  const cc = Bun.spawnSync(["cc", "-O2", "-o", out, resolve(import.meta.dir, "delay-proxy.c")], { stderr: "pipe" });
  if (cc.exitCode !== 0) throw new Error(`cc failed: ${cc.stderr.toString()}`);
  return out;
}

/** removeProxy deletes what buildProxy made. */
export function removeProxy(binary: string): void {
  rmSync(join(binary, ".."), { recursive: true, force: true });
}

/** startProxy runs one proxy in front of `databaseUrl`'s server, adding `rttUs` microseconds to each round trip. */
export async function startProxy(binary: string, databaseUrl: string, rttUs: number): Promise<Proxy> {
  const target = new URL(databaseUrl);
  const child = Bun.spawn([binary, "0", target.hostname, target.port, String(rttUs)], { stdout: "pipe", stderr: "inherit" });
  const first = new TextDecoder().decode((await child.stdout.getReader().read()).value);
  const port = Number(/listening (\d+)/.exec(first)?.[1]);
  if (!port) throw new Error(`delay-proxy did not start: ${first}`);
  return {
    port,
    pid: child.pid,
    url(databaseUrl) {
      const url = new URL(databaseUrl);
      url.port = String(port);
      return url.toString();
    },
    freeze: () => child.kill("SIGUSR1"),
    thaw: () => child.kill("SIGUSR2"),
    stop: () => child.kill("SIGKILL"),
  };
}
