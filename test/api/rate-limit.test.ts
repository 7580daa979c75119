import { afterAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";

const servers: TestServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.stop())));

async function server(env: Record<string, string>) {
  const s = await startTestServer(env);
  servers.push(s);
  return s;
}

describe("API_RATE_LIMIT_PER_MINUTE (spec 8.3)", () => {
  test("the request after the limit gets 429 RATE_LIMITED with Retry-After; a new minute resets", async () => {
    const t = await server({ API_RATE_LIMIT_PER_MINUTE: "5" });
    t.clock.set("2026-03-10T10:00:15.000Z");
    for (let i = 0; i < 5; i++) expect((await t.call("/v1/render-limits")).status).toBe(401);
    const limited = await t.call("/v1/render-limits");
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: "RATE_LIMITED", retryable: true });
    expect(limited.headers.get("retry-after")).toBe("45");
    expect(limited.headers.get("x-request-id")).toBeTruthy();
    expect((await t.call("/health")).status).toBe(200);
    t.clock.advance(45_000);
    expect((await t.call("/v1/render-limits")).status).toBe(401);
  });

  test("X-Forwarded-For is ignored unless the peer is a trusted proxy", async () => {
    const t = await server({ API_RATE_LIMIT_PER_MINUTE: "2" });
    for (const ip of ["203.0.113.1", "203.0.113.2"]) await t.call("/v1/render-limits", { headers: { "x-forwarded-for": ip } });
    const res = await t.call("/v1/render-limits", { headers: { "x-forwarded-for": "203.0.113.3" } });
    expect(res.status).toBe(429);
  });

  test("behind a trusted proxy each forwarded client has its own allowance", async () => {
    const t = await server({ API_RATE_LIMIT_PER_MINUTE: "2", TRUSTED_PROXY_RANGES: "127.0.0.0/8,::1/128" });
    const from = (chain: string) => t.call("/v1/render-limits", { headers: { "x-forwarded-for": chain } });
    expect((await from("198.51.100.7")).status).toBe(401);
    expect((await from("198.51.100.7")).status).toBe(401);
    expect((await from("198.51.100.7")).status).toBe(429);
    expect((await from("198.51.100.8")).status).toBe(401);
    // A client cannot pose as another by prepending: the rightmost untrusted hop counts.
    expect((await from("198.51.100.9, 198.51.100.7")).status).toBe(429);
    expect((await from("2001:db8::1, 127.0.0.5")).status).toBe(401);
  });
});
