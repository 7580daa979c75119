/** http/rate-limit: fixed one-minute windows per key (client address), spec 8.3. The rule is here; where the counts
 * live is a WindowCounters: in this process (MemoryCounters), or in Redis when several processes serve one API
 * (REDIS_URL: redis-counters.ts). */

const WINDOW_MS = 60_000;

/** WindowCounters counts hits per key within fixed time windows; asynchronous, as a shared counter is over the network. */
export interface WindowCounters {
  /** increment adds one hit to `key` in the window that starts at `window` (ms) and lasts `windowMs`, and answers the
   * key's count in that window. */
  increment(key: string, window: number, windowMs: number): Promise<number>;
  /** ping answers whether counters kept elsewhere (Redis) are reachable now; absent for counters kept in this process. */
  ping?(): Promise<boolean>;
}

/** MemoryCounters keeps the counts of the current window in this process. */
export class MemoryCounters implements WindowCounters {
  private window = 0;
  private counts = new Map<string, number>();

  async increment(key: string, window: number): Promise<number> {
    if (window !== this.window) {
      // A new minute: dropping the old map bounds memory by the clients of one minute.
      this.window = window;
      this.counts = new Map();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count;
  }
}

/** LimiterOptions: what a RateLimiter counts against and what it does when the counters cannot answer. */
export interface LimiterOptions {
  /** Names this limiter's keys, so that limiters can share one WindowCounters. */
  scope: string;
  perMinute: number;
  now: () => number;
  counters?: WindowCounters;
  /** Told when the counters failed; the hit is then counted in this process, so each process still holds the limit
   * (neither an outage for want of a counter, nor unlimited password guesses while Redis is away). */
  onUnavailable?: (error: unknown) => void;
}

/** RateLimiter counts hits per key in the current minute and says when the key may try again. */
export class RateLimiter {
  private readonly counters: WindowCounters;
  /** Counts while `counters` cannot (the same object when they are this process's own). */
  private readonly fallback: WindowCounters;
  /** The window in which the counters' failure was last reported: once a minute is enough to be seen. */
  private reportedIn = -1;

  constructor(private readonly options: LimiterOptions) {
    this.counters = options.counters ?? new MemoryCounters();
    this.fallback = options.counters ? new MemoryCounters() : this.counters;
  }

  /** hit counts one request for `key`: null when allowed, else the seconds until the window ends (Retry-After). */
  async hit(key: string): Promise<number | null> {
    const t = this.options.now();
    const window = Math.floor(t / WINDOW_MS) * WINDOW_MS;
    const scoped = `${this.options.scope}:${key}`;
    let count: number;
    try {
      count = await this.counters.increment(scoped, window, WINDOW_MS);
    } catch (e) {
      if (this.reportedIn !== window) this.options.onUnavailable?.(e);
      this.reportedIn = window;
      count = await this.fallback.increment(scoped, window, WINDOW_MS);
    }
    if (count <= this.options.perMinute) return null;
    return Math.max(1, Math.ceil((window + WINDOW_MS - t) / 1000));
  }
}
