/** shared-store: two renderd servers on one PostgreSQL store, Redis and bucket (test/backends.ts) — what one process
 * does, the other sees. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ok, startTestServer, type TestServer } from "../harness";
import { sharedStoreEnv } from "../backends";

let a: TestServer;
let b: TestServer;
let key: string;

beforeAll(async () => {
  const env = { ...(await sharedStoreEnv()), RENDER_WORKERS: "1" };
  a = await startTestServer(env);
  b = await startTestServer(env);
  key = await a.makeKey(a.defaultWorkspaceId, ["render:create", "render:read"]);
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
});

describe("two processes on one store", () => {
  test("one first start: both see the same workspace default and its administrator", async () => {
    expect(b.defaultWorkspaceId).toBe(a.defaultWorkspaceId);
    expect((await a.server.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM users"))!.n).toBe(1);
    expect(ok(await b.call("/v1/auth/me", { cookie: await b.signIn() }), 200).user.email).toBe("admin@example.test");
  });

  test("a key made on one works on the other; ?wait on one answers when the other prints the render", async () => {
    // A takes no renders: whatever it accepts, B prints.
    await a.server.worker.stop();
    const started = performance.now();
    const render = ok(await a.call("/v1/renders?wait=30", { key, body: { html: "<p>printed elsewhere</p>", test: true } }), 200);
    expect(render.status).toBe("succeeded");
    // Well before the 30 s the wait would last if only A's own worker could end it.
    expect(performance.now() - started).toBeLessThan(10_000);
    const pdf = await fetch(b.url + new URL(render.result.downloadUrl, b.url).pathname + new URL(render.result.downloadUrl, b.url).search);
    expect(pdf.status).toBe(200);
    expect(new TextDecoder().decode((await pdf.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
  });

  test("a ?wait the other process ended is answered without waiting for the log's flush (that durable end, later, carried the acceptance); one still queued at the wait's end waits for it", async () => {
    // A still takes no renders (the test above stopped its worker).
    const store = a.server.store;
    const sync = store.sync.bind(store);
    let syncs = 0;
    store.sync = () => ((syncs += 1), sync());
    try {
      ok(await a.call("/v1/renders?wait=30", { key, body: { html: "<p>ended elsewhere</p>", test: true } }), 200);
      expect(syncs).toBe(0);
      b.server.worker.pause(true);
      const queued = ok(await a.call("/v1/renders?wait=1", { key, body: { html: "<p>still queued</p>", test: true } }), 202);
      expect(queued.status).toBe("queued");
      expect(syncs).toBe(1);
    } finally {
      store.sync = sync;
      b.server.worker.pause(false);
    }
  });
});
