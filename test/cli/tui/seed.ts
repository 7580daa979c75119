/** seed: a real store in a temporary DATA_DIR with workspaces, renders in every state and a failing webhook endpoint,
 * made through the lifecycle functions on a manual clock (the screens' figures are then known). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureDataDir, loadConfig, type Config } from "../../../src/config";
import { ManualClock } from "../../../src/lib/clock";
import { newId } from "../../../src/lib/ids";
import { CLI_ACTOR } from "../../../src/auth/actor";
import { claimRender, endRender } from "../../../src/queue/lifecycle";
import { addToCounter, monthOf } from "../../../src/ledger/counters";
import { createWorkspace } from "../../../src/modules/workspaces/service";
import { openMigratedStore } from "../../../src/store/open";
import type { Store } from "../../../src/store/store";
import { sharedStoreEnv, testStoreEngine } from "../../backends";

export interface Seeded {
  store: Store;
  clock: ManualClock;
  config: Config;
  /** Workspace ids by slug: acme, globex. */
  ws: Record<"acme" | "globex", string>;
  /** Render ids: a failed one, a queued one, a processing one. */
  failedId: string;
  queuedId: string;
  processingId: string;
  endpointId: string;
  /** close closes the store and removes its DATA_DIR. */
  close(): Promise<void>;
}

const NOW = "2026-03-10T10:00:00.000Z";

async function insertRender(store: Store, clock: ManualClock, workspaceId: string, test = false): Promise<string> {
  const id = newId("rnd");
  const now = clock.now().toISOString();
  await store.tx(async (tx) => {
    await tx.run(
      `INSERT INTO renders (id, workspace_id, status, test, source, filename, job, created_at)
       VALUES ($id, $ws, 'queued', $test, 'html', 'doc.pdf', '{}', $now)`,
      { id, ws: workspaceId, test: test ? 1 : 0, now },
    );
    // As createRender does: a real document counts in its month from the start (spec 2.3).
    if (!test) addToCounter(tx, workspaceId, "documents", monthOf(now), 1);
  });
  return id;
}

/** seedStore makes the store (on PostgreSQL with RENDERD_TEST_STORE=postgres, as the TUI runs against DATABASE_URL); the
 * clock ends at 10:00 UTC, with renders finished in the minutes before. */
export async function seedStore(): Promise<Seeded> {
  const dataDir = mkdtempSync(join(tmpdir(), "renderd-tui-"));
  const shared = testStoreEngine() === "postgres" ? await sharedStoreEnv() : {};
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent", ...shared });
  ensureDataDir(config);
  const clock = new ManualClock(new Date(Date.parse(NOW) - 4 * 60_000));
  const { store } = await openMigratedStore(config, clock);
  const ctx = { actor: CLI_ACTOR, requestId: "req_seed" };
  const ws = { acme: (await store.tx((tx) => createWorkspace(tx, clock, ctx, { name: "Acme" }))).id, globex: (await store.tx((tx) => createWorkspace(tx, clock, ctx, { name: "Globex" }))).id };
  const endpointId = newId("whe");
  await store.tx((tx) => tx.run(
    `INSERT INTO webhook_endpoints (id, workspace_id, url, event_types, secret_encrypted, created_at, updated_at)
     VALUES ($id, $ws, 'https://hooks.acme.test/renderd', '["render.succeeded","render.failed"]', 'x', $now, $now)`,
    { id: endpointId, ws: ws.acme, now: clock.now().toISOString() },
  ));
  const SEED_LEASE = { owner: "prc_seed", expiresAt: "2999-01-01T00:00:00.000Z" };
  // Three renders that waited 2 s and printed 1, 2 and 3 s, finishing within the last 5 minutes.
  for (const printSeconds of [1, 2, 3]) {
    const id = await insertRender(store, clock, ws.acme);
    clock.advance(2000);
    await store.tx(async (tx) => claimRender(tx, clock, id, SEED_LEASE));
    clock.advance(printSeconds * 1000);
    await store.tx(async (tx) => endRender(tx, clock, id, ["processing"], { status: "succeeded", outputSha256: "0".repeat(64), pages: 1, bytes: 1000 }));
    clock.advance(60_000);
  }
  const failedId = await insertRender(store, clock, ws.globex);
  await store.tx(async (tx) => claimRender(tx, clock, failedId, SEED_LEASE));
  clock.advance(500);
  await store.tx(async (tx) => endRender(tx, clock, failedId, ["processing"], { status: "failed", code: "RENDER_TIMEOUT", message: "too slow" }));
  const processingId = await insertRender(store, clock, ws.globex);
  await store.tx(async (tx) => claimRender(tx, clock, processingId, SEED_LEASE));
  const queuedId = await insertRender(store, clock, ws.acme, true);
  // The endpoint answers 503: its deliveries are retrying.
  await store.tx((tx) => tx.run(
    `UPDATE webhook_deliveries SET attempts = 2, last_status_code = 503, last_error = 'The endpoint answered HTTP 503.',
       last_attempt_at = $at, next_attempt_at = '2026-03-10T10:05:00.000Z' WHERE endpoint_id = $id`,
    { id: endpointId, at: clock.now().toISOString() },
  ));
  // The oldest has run out of attempts (spec 6.5): failed for good.
  await store.tx((tx) => tx.run(
    `UPDATE webhook_deliveries SET status = 'failed', attempts = 11, next_attempt_at = NULL
     WHERE id = (SELECT id FROM webhook_deliveries WHERE endpoint_id = $id ORDER BY created_at, id LIMIT 1)`,
    { id: endpointId },
  ));
  clock.set(NOW);
  return {
    store,
    clock,
    config,
    ws,
    failedId,
    queuedId,
    processingId,
    endpointId,
    async close() {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
