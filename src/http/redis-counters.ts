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

// /health waits at most this long for Redis (a probe's own timeout is often 1 s), and one answer serves every /health
// for a second, so a polled /health never piles up calls behind a Redis that does not answer.
const PING_TIMEOUT_MS = 500;
const PING_REUSE_MS = 1_000;

/** RedisCounters keeps each key's count of a window under `renderd:rate:<key>:<window>`, expiring after the window. */
export class RedisCounters implements WindowCounters {
  private readonly client: RedisClient;
  private lastPing: { at: number; answer: Promise<boolean> } | undefined;

  constructor(url: string) {
    // No queue and no retries in the background while Redis is away: a hit does not wait for a reconnection, it fails
    // and the limiter lets it through; the next hit tries to connect again.
    this.client = new RedisClient(url, { enableOfflineQueue: false, autoReconnect: false, connectionTimeout: 1_000 });
  }

  async increment(key: string, window: number, windowMs: number): Promise<number> {
    await this.connect();
    const count = await this.client.send("EVAL", [INCREMENT, "1", `renderd:rate:${key}:${window}`, String(windowMs + EXPIRY_MARGIN_MS)]);
    return Number(count);
  }

  /** ping answers whether Redis answers PING within 500 ms (an answer at most a second old). */
  ping(): Promise<boolean> {
    // Real time whatever the app's clock: this is about the network, not the calendar.
    const now = Date.now();
    if (this.lastPing && now - this.lastPing.at < PING_REUSE_MS) return this.lastPing.answer;
    const answer = this.pingOnce();
    this.lastPing = { at: now, answer };
    return answer;
  }

  private async pingOnce(): Promise<boolean> {
    let timer: Timer | undefined;
    const late = new Promise<boolean>((done) => (timer = setTimeout(() => done(false), PING_TIMEOUT_MS)));
    const pong = this.connect().then(async () => (await this.client.send("PING", [])) === "PONG");
    try {
      return await Promise.race([pong, late]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  // No retries in the background (constructor): each call that finds the connection gone opens it again.
  private async connect(): Promise<void> {
    if (!this.client.connected) await this.client.connect();
  }

  /** close closes the connection. */
  close(): void {
    this.client.close();
  }
}

/** redisAddress answers REDIS_URL without its user, password or database: what a log line may say about it. */
export function redisAddress(url: string): string {
  const { protocol, host } = new URL(url);
  return `${protocol}//${host}`;
}
