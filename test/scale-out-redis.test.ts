/** scale-out-redis: what issue 15 asks of Redis, with real `renderd serve` processes on a shared store (PostgreSQL,
 * s3rver) and a redis-server of each test's own, to stop and start: /health names redis while it is down and renders go
 * on; a rate limit of N per minute admits N across two processes; an unreachable REDIS_URL at start is a warning, not an
 * exit. */
import { afterEach, expect, test } from "bun:test";
import { ROOT, freePort, startServe, type ServeProcess } from "./serve-process";
import { startRedis, type TestRedis } from "./http/redis-server";
import { until } from "./wait";
import { sharedStoreEnv } from "./backends";

const SERVE = [process.execPath, `${ROOT}/cli/main.ts`];

let serves: ServeProcess[] = [];
let redis: TestRedis | undefined;
afterEach(async () => {
  await Promise.all(serves.map((s) => s.stop()));
  serves = [];
  await redis?.stop();
  redis = undefined;
});

async function health(serve: ServeProcess): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${serve.url}/health`);
  return { status: res.status, body: await res.json() };
}

/** untilHealth polls /health until it answers `status`, failing after 10 s. */
async function untilHealth(serve: ServeProcess, status: number): Promise<{ status: number; body: unknown }> {
  const end = Date.now() + 10_000;
  for (;;) {
    const h = await health(serve);
    if (h.status === status || Date.now() > end) return h;
    await Bun.sleep(100);
  }
}

test("Redis stopped and started again during a run: /health 503 naming redis, then 200; every render created succeeds", async () => {
  redis = await startRedis();
  const serve = await startServe(SERVE, { ...(await sharedStoreEnv()), REDIS_URL: redis.url });
  serves.push(serve);
  const key = await serve.makeKey(["render:create", "render:read"]);
  // One entry per render created: its final status, as its ?wait answer gave it.
  const finished: string[] = [];
  const refused: string[] = [];
  let creating = true;
  const client = (async () => {
    for (let i = 0; creating; i++) {
      // ?wait: one render at a time, so the workspace's renders in progress (10 at once) never refuse one on a slow machine.
      const made = await serve.call("/v1/renders?wait=30", key, { html: `<p>render ${i} while Redis comes and goes</p>` });
      if (made.status === 200) finished.push(made.body.status);
      else refused.push(`${made.status} ${JSON.stringify(made.body)}`);
      await Bun.sleep(50);
    }
  })();

  await until(() => finished.length >= 3);
  expect(await health(serve)).toEqual({ status: 200, body: { status: "ok" } });
  await redis.stop();
  expect(await untilHealth(serve, 503)).toEqual({ status: 503, body: { status: "unavailable", unavailable: ["redis"] } });
  // Renders are still accepted while Redis is away: the limit is counted in this process meanwhile.
  const beforeOutage = finished.length;
  await until(() => finished.length >= beforeOutage + 5);
  redis = await startRedis(redis.port);
  expect(await untilHealth(serve, 200)).toEqual({ status: 200, body: { status: "ok" } });
  const beforeBack = finished.length;
  await until(() => finished.length >= beforeBack + 3);
  creating = false;
  await client;
  // The new redis-server started empty: the counts went back to it once it answered.
  const keys = Bun.spawnSync(["redis-cli", "-u", redis.url, "--scan", "--pattern", "renderd:rate:api:*"], { stdout: "pipe" }).stdout.toString().trim();
  expect(keys).not.toBe("");

  expect(refused).toEqual([]);
  expect(finished.length).toBeGreaterThanOrEqual(11);
  expect(finished.filter((status) => status !== "succeeded")).toEqual([]);
}, 120_000);

test("a rate limit of N per minute admits N across two processes sharing Redis, the rest 429 with Retry-After", async () => {
  const N = 10;
  redis = await startRedis();
  // One store, one key: the limit is per client address, and both processes see 127.0.0.1, so they count in one Redis key.
  const env = { ...(await sharedStoreEnv()), REDIS_URL: redis.url, API_RATE_LIMIT_PER_MINUTE: String(N) };
  serves = await Promise.all([0, 1].map(() => startServe(SERVE, env)));
  const key = await serves[0].makeKey(["asset:manage"]);
  // All hits inside one minute window: start with at least 15 s of it left.
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await Bun.sleep(60_000 - intoMinute + 100);

  const answers: Response[] = [];
  for (let i = 0; i < 3 * N; i++) {
    const s = i % 2;
    answers.push(await fetch(`${serves[s].url}/v1/assets`, { headers: { "x-api-key": key } }));
  }
  const admitted = answers.filter((a) => a.status === 200);
  const limited = answers.filter((a) => a.status === 429);
  expect([admitted.length, limited.length]).toEqual([N, 2 * N]);
  // The first N, from both processes alike, are the admitted ones.
  expect(answers.slice(0, N).every((a) => a.status === 200)).toBe(true);
  for (const a of limited) {
    const body = (await a.json()) as { error: { code: string; message: string; retryable: boolean } };
    expect(body.error).toMatchObject({ code: "RATE_LIMITED", retryable: true });
    expect(body.error.message).not.toBe("");
    const retryAfter = Number(a.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  }
}, 120_000);

test("a REDIS_URL that nothing answers: serve starts, warns once without the password, /health 503 redis, reads served", async () => {
  const port = await freePort();
  const serve = await startServe(SERVE, { ...(await sharedStoreEnv()), REDIS_URL: `redis://renderd:hunter2-secret@127.0.0.1:${port}`, LOG_LEVEL: "info" });
  serves.push(serve);
  expect(await health(serve)).toEqual({ status: 503, body: { status: "unavailable", unavailable: ["redis"] } });
  const key = await serve.makeKey(["asset:manage"]);
  expect((await serve.call("/v1/assets", key)).status).toBe(200);
  serve.proc.kill("SIGTERM");
  await serve.proc.exited;
  expect(serve.proc.exitCode).toBe(0);
  const out = (await new Response(serve.proc.stdout).text()) + (await new Response(serve.proc.stderr).text());
  expect(out).toContain("rate counters unavailable; counting in this process");
  expect(out).not.toContain("hunter2");
  const warnings = out.split("\n").filter((line) => line.includes("REDIS_URL does not answer"));
  expect(warnings.length).toBe(1);
  expect(JSON.parse(warnings[0])).toMatchObject({ level: 40, redis: `redis://127.0.0.1:${port}` });
}, 60_000);
