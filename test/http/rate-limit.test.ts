import { describe, expect, test } from "bun:test";
import { MemoryCounters, RateLimiter } from "../../src/http/rate-limit";

describe("RateLimiter (spec 8.3)", () => {
  test("allows perMinute hits per key in a minute, then answers the seconds left in it", () => {
    let now = 120_000 + 15_000;
    const limiter = new RateLimiter(2, () => now);
    expect([limiter.hit("a"), limiter.hit("a"), limiter.hit("b")]).toEqual([null, null, null]);
    expect(limiter.hit("a")).toBe(45);
    now = 180_000;
    expect(limiter.hit("a")).toBeNull();
  });
});

describe("MemoryCounters", () => {
  test("counts per key within a window and starts again at the next one", () => {
    const counters = new MemoryCounters();
    expect([counters.increment("a", 0), counters.increment("a", 0), counters.increment("b", 0)]).toEqual([1, 2, 1]);
    expect(counters.increment("a", 60_000)).toBe(1);
  });
});
