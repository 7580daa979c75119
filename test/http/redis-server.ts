/** redis-server: a real Redis (Debian's redis-server) for tests, on a free loopback port, in the foreground of a child
 * process that stop() ends; nothing is written to disk. */
import { freePort } from "../serve-process";

/** TestRedis is a running redis-server: its URL and port, stop(), and pause()/resume() (SIGSTOP/SIGCONT: a server that
 * accepts connections but answers nothing). */
export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  pause(): void;
  resume(): void;
}

/** startRedis starts redis-server on 127.0.0.1 (on `port`, to start one again where another was) with `databases`
 * numbered databases, and resolves once it answers PING. */
export async function startRedis(port?: number, databases = 16): Promise<TestRedis> {
  port ??= await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--daemonize", "no", "--save", "", "--appendonly", "no", "--databases", String(databases)];
  const proc = Bun.spawn(["redis-server", ...args], {
    stdout: "ignore",
    stderr: "ignore",
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ping = Bun.spawnSync(["redis-cli", "-p", String(port), "ping"], { stdout: "pipe", stderr: "ignore" });
    if (ping.stdout.toString().trim() === "PONG") break;
    if (Date.now() > deadline) {
      proc.kill();
      throw new Error(`redis-server did not answer on port ${port}`);
    }
    await Bun.sleep(50);
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pause: () => proc.kill("SIGSTOP"),
    resume: () => proc.kill("SIGCONT"),
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}
