/** http/redis-counters: the rate-limit windows in Redis (REDIS_URL), shared by every renderd process that uses it, through
 * Bun's built-in RedisClient. */
import { RedisClient } from "bun";
import type { WindowCounters } from "./rate-limit";

// One script, run atomically by Redis: the count and its expiry are set together, so a key never outlives its window
// and two processes never lose a hit between them. (MULTI on a connection shared by concurrent requests is unsafe: the
// commands of two requests interleave inside one transaction.)
const INCREMENT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

// A key lives a little past its window, so clocks a little apart between hosts still count in the same key.
const EXPIRY_MARGIN_MS = 5_000;

/** RedisCounters keeps each key's count of a window under `renderd:rate:<key>:<window>`, expiring after the window. */
export class RedisCounters implements WindowCounters {
  private readonly client: RedisClient;

  constructor(url: string) {
    // No queue and no retries in the background while Redis is away: a hit does not wait for a reconnection, it fails
    // and the limiter lets it through; the next hit tries to connect again.
    this.client = new RedisClient(url, { enableOfflineQueue: false, autoReconnect: false, connectionTimeout: 1_000 });
  }

  async increment(key: string, window: number, windowMs: number): Promise<number> {
    if (!this.client.connected) await this.client.connect();
    const count = await this.client.send("EVAL", [INCREMENT, "1", `renderd:rate:${key}:${window}`, String(windowMs + EXPIRY_MARGIN_MS)]);
    return Number(count);
  }

  /** close closes the connection. */
  close(): void {
    this.client.close();
  }
}
