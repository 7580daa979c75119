/** rate-limit: the one-minute windows of spec 8.3, and one contract for every WindowCounters, run against this process's
 * counters and against a real redis-server. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryCounters, RateLimiter, type WindowCounters } from "../../src/http/rate-limit";
import { RedisCounters } from "../../src/http/redis-counters";
import { freePort } from "../serve-process";
import { startRedis, type TestRedis } from "./redis-server";

let redis: TestRedis;
const clients: RedisCounters[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const c of clients) c.close();
  await redis.stop();
});

function redisCounters(url = redis.url): RedisCounters {
  const c = new RedisCounters(url);
  clients.push(c);
  return c;
}

// Redis keeps its keys between tests: each test counts under its own keys.
let run = 0;
const key = (name: string) => `${name}-${++run}-${Date.now()}`;

const backends: { name: string; make: () => WindowCounters; shared: boolean }[] = [
  { name: "MemoryCounters", make: () => new MemoryCounters(), shared: false },
  { name: "RedisCounters", make: () => redisCounters(), shared: true },
];

describe.each(backends)("WindowCounters contract: $name", ({ make, shared }) => {
  test("counts per key within a window and starts again at the next one", async () => {
    const counters = make();
    const [a, b] = [key("a"), key("b")];
    expect([await counters.increment(a, 0, 60_000), await counters.increment(a, 0, 60_000), await counters.increment(b, 0, 60_000)]).toEqual([1, 2, 1]);
    expect(await counters.increment(a, 60_000, 60_000)).toBe(1);
  });

  test("concurrent hits are each counted once", async () => {
    const counters = make();
    const k = key("burst");
    const counts = await Promise.all(Array.from({ length: 50 }, () => counters.increment(k, 120_000, 60_000)));
    expect(counts.toSorted((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  test("the RateLimiter admits perMinute hits per key in a minute, then answers the seconds left in it", async () => {
    let now = 120_000 + 15_000;
    const limiter = new RateLimiter({ scope: key("api"), perMinute: 2, now: () => now, counters: make() });
    expect([await limiter.hit("a"), await limiter.hit("a"), await limiter.hit("b")]).toEqual([null, null, null]);
    expect(await limiter.hit("a")).toBe(45);
    now = 180_000;
    expect(await limiter.hit("a")).toBeNull();
  });

  test(shared ? "two processes' limiters share the count: N per minute across both" : "limiters in one process share their counters", async () => {
    const scope = key("shared");
    const now = () => 240_000;
    const first = new RateLimiter({ scope, perMinute: 3, now, counters: make() });
    const second = new RateLimiter({ scope, perMinute: 3, now, counters: shared ? make() : (first as unknown as { counters: WindowCounters }).counters });
    const answers = [await first.hit("x"), await second.hit("x"), await first.hit("x"), await second.hit("x")];
    expect(answers.filter((a) => a === null)).toHaveLength(3);
    expect(answers[3]).toBe(60);
  });
});

describe("RateLimiter", () => {
  test("hits counted in the process while the counters failed still count: one process holds its limit exactly through a hiccup", async () => {
    let calls = 0;
    const inner = new MemoryCounters();
    // The 2nd and 4th hits find the counters silent (a slow first connection, a short outage).
    const flaky: WindowCounters = {
      increment: (k, window) => (++calls === 2 || calls === 4 ? Promise.reject(new Error("Redis did not answer EVAL within 500 ms")) : inner.increment(k, window)),
    };
    const limiter = new RateLimiter({ scope: "api", perMinute: 3, now: () => 420_000, counters: flaky });
    // 1: counted there; 2: here (1 + 1); 3: there again (2 + 1 here); 4: here, after the last answer (2 + 2): refused.
    expect([await limiter.hit("a"), await limiter.hit("a"), await limiter.hit("a"), await limiter.hit("a")]).toEqual([null, null, null, 60]);
    // 5: answered again (3 there + 2 here).
    expect(await limiter.hit("a")).toBe(60);
  });
});

describe("RedisCounters", () => {
  test("a window's key expires after the window (and a small margin)", async () => {
    const k = key("ttl");
    await redisCounters().increment(k, 0, 60_000);
    const ttl = Bun.spawnSync(["redis-cli", "-u", redis.url, "pttl", `renderd:rate:${k}:0`], { stdout: "pipe" }).stdout.toString().trim();
    expect(Number(ttl)).toBeGreaterThan(60_000);
    expect(Number(ttl)).toBeLessThanOrEqual(65_000);
  });

  test("Redis unreachable: the limiter counts in this process instead, and reports it once per window", async () => {
    const reported: unknown[] = [];
    const counters = redisCounters(`redis://127.0.0.1:${await freePort()}`);
    const limiter = new RateLimiter({ scope: "api", perMinute: 1, now: () => 300_000, counters, onUnavailable: (e) => reported.push(e) });
    expect([await limiter.hit("a"), await limiter.hit("a"), await limiter.hit("b")]).toEqual([null, 60, null]);
    expect(reported).toHaveLength(1);
  });

  test("Redis that accepts and answers nothing: a hit waits 500 ms at most, the next second's none, then Redis counts again", async () => {
    const own = await startRedis();
    const counters = redisCounters(own.url);
    // The window stays put (the back-off runs on real time inside RedisCounters): a test that crossed a minute on the
    // wall clock would count its hits under two keys.
    const limiter = new RateLimiter({ scope: "api", perMinute: 100, now: () => 360_000, counters });
    const timed = async () => {
      const started = performance.now();
      expect(await limiter.hit("a")).toBeNull();
      return performance.now() - started;
    };
    try {
      await timed();
      own.pause();
      expect(await timed()).toBeGreaterThanOrEqual(450);
      expect(await timed()).toBeLessThan(50);
      own.resume();
      await Bun.sleep(1_050);
      await timed();
      const counted = Bun.spawnSync(["redis-cli", "-u", own.url, "--scan", "--pattern", "renderd:rate:api:a:*"], { stdout: "pipe" }).stdout.toString().trim();
      const n = Bun.spawnSync(["redis-cli", "-u", own.url, "get", counted], { stdout: "pipe" }).stdout.toString().trim();
      // The first hit, the one sent into the silence (Redis runs it when it wakes: a command sent cannot be taken back,
      // so such a hit counts twice, on the stricter side) and the one after the back-off; the back-off's hit only here.
      expect(n).toBe("3");
    } finally {
      own.resume();
      await own.stop();
    }
  });

  test("a command Redis answered within the last second is /health's answer: no ping queued behind the rate limits", async () => {
    const own = await startRedis();
    const counters = redisCounters(own.url);
    try {
      await counters.increment(key("warm"), 0, 60_000);
      own.pause();
      const started = performance.now();
      expect(await counters.ping()).toBe(true);
      expect(performance.now() - started).toBeLessThan(50);
      await Bun.sleep(1_050);
      expect(await counters.ping()).toBe(false);
    } finally {
      own.resume();
      await own.stop();
    }
  });
});
