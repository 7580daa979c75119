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

// A Redis that accepts and answers nothing (a stopped process, a partition without a reset) must not hold requests: a
// call fails after this, and the connection is dropped so that the next call opens a new one. (/health's probe waits
// at most this long too; a probe's own timeout is often 1 s.)
const ANSWER_TIMEOUT_MS = 500;
// After a failure, hits are counted in the process for this long without asking Redis (a silent Redis then delays one
// request a second, not every request), and one PING answer serves every /health as long.
const BACK_OFF_MS = 1_000;

/** RedisCounters keeps each key's count of a window under `renderd:rate:<key>:<window>`, expiring after the window. */
export class RedisCounters implements WindowCounters {
  private readonly client: RedisClient;
  // Real time whatever the app's clock: these are about the network, not the calendar.
  private failedAt = -Infinity;
  private answeredAt = -Infinity;
  private lastPing: { at: number; answer: Promise<boolean> } | undefined;

  constructor(url: string) {
    // No queue and no retries in the background while Redis is away: a hit does not wait for a reconnection, it fails
    // and the limiter counts it in the process; a later call connects again.
    this.client = new RedisClient(url, { enableOfflineQueue: false, autoReconnect: false, connectionTimeout: 1_000 });
  }

  async increment(key: string, window: number, windowMs: number): Promise<number> {
    if (Date.now() - this.failedAt < BACK_OFF_MS) throw new Error(`Redis failed less than ${BACK_OFF_MS} ms ago`);
    const count = await this.send("EVAL", [INCREMENT, "1", `renderd:rate:${key}:${window}`, String(windowMs + EXPIRY_MARGIN_MS)]);
    return Number(count);
  }

  /** ping answers whether Redis answers PING within 500 ms (an answer at most a second old). Any command Redis answered
   * in that second counts as the answer: a busy host's /health asks nothing of Redis that the rate limits just did. */
  ping(): Promise<boolean> {
    const now = Date.now();
    if (now - this.answeredAt < BACK_OFF_MS && this.answeredAt > this.failedAt) return Promise.resolve(true);
    if (this.lastPing && now - this.lastPing.at < BACK_OFF_MS) return this.lastPing.answer;
    const answer = this.send("PING", []).then(
      (pong) => pong === "PONG",
      () => false,
    );
    this.lastPing = { at: now, answer };
    return answer;
  }

  /** send runs one command, connecting first if the connection is gone, and fails after ANSWER_TIMEOUT_MS. */
  private async send(command: string, args: string[]): Promise<unknown> {
    let timer: Timer | undefined;
    const late = new Promise<never>((_, fail) => {
      timer = setTimeout(() => {
        this.client.close();
        fail(new Error(`Redis did not answer ${command} within ${ANSWER_TIMEOUT_MS} ms`));
      }, ANSWER_TIMEOUT_MS);
    });
    const answer = (async () => {
      if (!this.client.connected) await this.client.connect();
      return this.client.send(command, args);
    })();
    try {
      const answered = await Promise.race([answer, late]);
      this.answeredAt = Date.now();
      return answered;
    } catch (e) {
      this.failedAt = Date.now();
      throw e;
    } finally {
      clearTimeout(timer);
    }
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
