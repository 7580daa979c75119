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

/** WindowCounts holds a number per key for the current window only: a new window drops the old one, so memory is
 * bounded by the keys of one minute. */
class WindowCounts {
  private window = 0;
  private counts = new Map<string, number>();

  get(key: string, window: number): number {
    return window === this.window ? (this.counts.get(key) ?? 0) : 0;
  }

  set(key: string, window: number, n: number): void {
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    this.counts.set(key, n);
  }
}

/** MemoryCounters keeps the counts of the current window in this process. */
export class MemoryCounters implements WindowCounters {
  private readonly counts = new WindowCounts();

  async increment(key: string, window: number): Promise<number> {
    const count = this.counts.get(key, window) + 1;
    this.counts.set(key, window, count);
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
  /** Hits counted in this process while the counters could not answer (a slow or absent Redis): they still count
   * once Redis answers again, so a hiccup never hands a client extra requests. */
  private readonly missed = new WindowCounts();
  /** The counters' last answer per key: while they cannot answer, the count goes on from it. */
  private readonly lastShared = new WindowCounts();
  /** The window in which the counters' failure was last reported: once a minute is enough to be seen. */
  private reportedIn = -1;

  constructor(private readonly options: LimiterOptions) {
    this.counters = options.counters ?? new MemoryCounters();
  }

  /** hit counts one request for `key`: null when allowed, else the seconds until the window ends (Retry-After). */
  async hit(key: string): Promise<number | null> {
    const t = this.options.now();
    const window = Math.floor(t / WINDOW_MS) * WINDOW_MS;
    const scoped = `${this.options.scope}:${key}`;
    let count: number;
    try {
      const shared = await this.counters.increment(scoped, window, WINDOW_MS);
      this.lastShared.set(scoped, window, shared);
      count = shared + this.missed.get(scoped, window);
    } catch (e) {
      if (this.reportedIn !== window) this.options.onUnavailable?.(e);
      this.reportedIn = window;
      const missed = this.missed.get(scoped, window) + 1;
      this.missed.set(scoped, window, missed);
      count = this.lastShared.get(scoped, window) + missed;
    }
    if (count <= this.options.perMinute) return null;
    return Math.max(1, Math.ceil((window + WINDOW_MS - t) / 1000));
  }
}
