import { afterAll, beforeAll, expect, test } from "bun:test";
import { Actions } from "../../../cli/tui/actions";
import { loadConfig } from "../../../src/config";
import { openStore } from "../../../src/store/open";
import type { Store } from "../../../src/store/store";
import { slowHtml } from "../../render/fixtures";
import { startTestServer, type TestServer } from "../../harness";
import { until } from "../../wait";

let t: TestServer;
let tuiStore: Store;
beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1" });
  // The TUI's own connection to the same DATA_DIR, as `renderd tui` opens it beside serve.
  tuiStore = openStore(t.dataDir);
});
afterAll(async () => {
  await tuiStore.close();
  await t.stop();
});

test("a render cancelled from the TUI while serve prints it stops printing within about a second", async () => {
  const key = await t.makeKey(t.defaultWorkspaceId, ["render:create", "render:read"]);
  const made = await t.call("/v1/renders", { key, body: { html: slowHtml(30) } });
  await until(() => t.server.worker.inFlight().some((r) => r.renderId === made.body.id));
  const actions = new Actions(tuiStore, t.clock, loadConfig({ DATA_DIR: t.dataDir, LOG_LEVEL: "silent" }));
  const cancelledAt = performance.now();
  await actions.cancel(t.defaultWorkspaceId, made.body.id);
  await until(() => t.server.worker.inFlight().length === 0, 5_000);
  expect(performance.now() - cancelledAt).toBeLessThan(3_000);
  const got = await t.call(`/v1/renders/${made.body.id}`, { key });
  expect(got.body.status).toBe("cancelled");
  const metrics = await (await fetch(`${t.internalUrl}/metrics`)).text();
  expect(metrics).toContain('renderd_renders_total{status="cancelled",test="false"} 1');
});
