import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";
import { readiness } from "../../src/modules/health";
import { Store } from "../../src/store/open";

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

  test("names the database when the store cannot be queried", () => {
    const store = new Store(":memory:");
    store.close();
    expect(readiness(store)).toEqual({ status: "unavailable", unavailable: ["database"] });
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
