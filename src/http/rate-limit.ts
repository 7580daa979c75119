/** http/rate-limit: fixed one-minute windows per key (client address), spec 8.3. The rule is here; where the counts
 * live is a WindowCounters (in this process today; a shared store when several processes serve one API). */

/** WindowCounters counts hits per key within one time window. */
export interface WindowCounters {
  /** increment adds one hit to `key` in the window starting at `window` (ms) and answers the key's count in it. */
  increment(key: string, window: number): number;
}

/** MemoryCounters keeps the counts of the current window in this process. */
export class MemoryCounters implements WindowCounters {
  private window = 0;
  private counts = new Map<string, number>();

  increment(key: string, window: number): number {
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

/** RateLimiter counts hits per key in the current minute and says when the key may try again. */
export class RateLimiter {
  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
    private readonly counters: WindowCounters = new MemoryCounters(),
  ) {}

  /** hit counts one request for `key`: null when allowed, else the seconds until the window ends (Retry-After). */
  hit(key: string): number | null {
    const t = this.now();
    const window = Math.floor(t / 60_000) * 60_000;
    if (this.counters.increment(key, window) <= this.perMinute) return null;
    return Math.max(1, Math.ceil((window + 60_000 - t) / 1000));
  }
}
