/** redis-server: a real Redis (Debian's redis-server) for tests, on a free loopback port, in the foreground of a child
 * process that stop() ends; nothing is written to disk. */
import { freePort } from "../serve-process";

/** TestRedis is a running redis-server: its URL and stop(). */
export interface TestRedis {
  url: string;
  stop(): Promise<void>;
}

/** startRedis starts redis-server on 127.0.0.1 and resolves once it answers PING. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const proc = Bun.spawn(["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--daemonize", "no", "--save", "", "--appendonly", "no"], {
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
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}
