import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";
import { startRedis } from "../http/redis-server";
import { freePort } from "../serve-process";
import { readiness } from "../../src/modules/health";
import { MemoryCounters } from "../../src/http/rate-limit";
import { redisAddress, RedisCounters } from "../../src/http/redis-counters";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite-store";
import { until } from "../wait";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

describe("GET /health", () => {
  test("answers 200 ok with a request id when the store is reachable", async () => {
    const res = await t.call("/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
    expect(res.headers.get("x-request-id")).toMatch(/^req_[A-Za-z0-9]{22}$/);
  });

  test("names the database when the store cannot be queried", async () => {
    const dir = mkdtempSync(join(tmpdir(), "renderd-health-"));
    const store = new SqliteStore(join(dir, "renderd.db"));
    await store.close();
    expect(await readiness(store)).toEqual({ status: "unavailable", unavailable: ["database"] });
    rmSync(dir, { recursive: true, force: true });
  });

  test("names redis when the rate counters' Redis does not answer, and asks nothing of counters in this process", async () => {
    const counters = new RedisCounters(`redis://:hunter2@127.0.0.1:${await freePort()}`);
    try {
      expect(await readiness(t.server.store, counters)).toEqual({ status: "unavailable", unavailable: ["redis"] });
      expect(await readiness(t.server.store, new MemoryCounters())).toEqual({ status: "ok" });
    } finally {
      counters.close();
    }
  });

  test("Redis that accepts but never answers costs /health at most 500 ms, and one ping serves the next second", async () => {
    const redis = await startRedis();
    const counters = new RedisCounters(redis.url);
    try {
      // The first ping opens the connection, which a loaded machine (CI on 2 cores) has taken over 500 ms to do: what is
      // tested is a Redis that stops answering, so the test waits for one that answers first.
      await until(async () => (await readiness(t.server.store, counters)).status === "ok", 10_000);
      await Bun.sleep(1_050);
      redis.pause();
      const started = performance.now();
      expect(await readiness(t.server.store, counters)).toEqual({ status: "unavailable", unavailable: ["redis"] });
      const took = performance.now() - started;
      expect(took).toBeGreaterThanOrEqual(450);
      expect(took).toBeLessThan(900);
      // Within the second, the same answer without a ping: a polled /health does not queue pings behind a silent
      // Redis. A ping would wait its 450+ ms; the bound under that leaves room for a collection of the test process.
      const again = performance.now();
      expect(await readiness(t.server.store, counters)).toEqual({ status: "unavailable", unavailable: ["redis"] });
      expect(performance.now() - again).toBeLessThan(400);
    } finally {
      redis.resume();
      counters.close();
      await redis.stop();
    }
  });

  test("a log line names Redis by its address only: no user, password or database", () => {
    expect(redisAddress("rediss://renderd:hunter2@cache.internal:6380/3")).toBe("rediss://cache.internal:6380");
  });

  test("needs no authentication and is not rate limited as /v1/", async () => {
    const res = await t.call("/health", { key: "rd_not-a-key" });
    expect(res.status).toBe(200);
  });
});

describe("GET /health/live", () => {
  test("answers on the internal port", async () => {
    const res = await fetch(`${t.internalUrl}/health/live`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  test("is not served on the public port", async () => {
    const res = await t.call("/health/live");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });

  test("the internal port serves nothing else", async () => {
    const res = await fetch(`${t.internalUrl}/v1/render-limits`);
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe("NOT_FOUND");
  });
});
