/** http/rate-limit: fixed one-minute windows per key (client address), kept in memory (spec 8.3). */

/** RateLimiter counts hits per key in the current minute and says when the key may try again. */
export class RateLimiter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {}

  /** hit counts one request for `key`: null when allowed, else the seconds until the window ends (Retry-After). */
  hit(key: string): number | null {
    const t = this.now();
    const window = Math.floor(t / 60_000) * 60_000;
    if (window !== this.windowStart) {
      // A new minute: dropping the old map bounds memory by the clients of one minute.
      this.windowStart = window;
      this.counts = new Map();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    if (count <= this.perMinute) return null;
    return Math.max(1, Math.ceil((window + 60_000 - t) / 1000));
  }
}
