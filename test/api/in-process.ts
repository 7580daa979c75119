/** in-process: the public API built without listening or starting Chromium, for tests of what needs only the routes
 * (the OpenAPI document, the reference page). The pool and the conversion runner are made but never started. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApi, type Api } from "../../src/app";
import { loadConfig } from "../../src/config";
import { ManualClock } from "../../src/lib/clock";
import { createLogger } from "../../src/logger";
import { poolOptions, RenderPool } from "../../src/render/pool";
import { StoreQueue } from "../../src/queue/store-queue";
import { RenderWorker } from "../../src/render/worker";
import { DiskFiles } from "../../src/store/files-disk";
import { SpooledFiles } from "../../src/store/output-spool";
import { namerOptions } from "../../src/modules/template-conversions/namer";
import { ConversionRunner } from "../../src/modules/template-conversions/runner";
import { migrate } from "../../src/store/migrate";
import { openStore } from "../../src/store/open";
import { Space } from "../../src/store/space";
import type { Store } from "../../src/store/store";

export interface InProcessApi {
  api: Api;
  dataDir: string;
  /** What the routes use, for tests that make data through the services too (a render completed without printing). */
  store: Store;
  clock: ManualClock;
  files: SpooledFiles;
  queue: StoreQueue;
  /** close closes the store and removes DATA_DIR, unless `keepDataDir` (the caller removes it). */
  close(keepDataDir?: boolean): Promise<void>;
}

/** buildApi makes the API over a fresh, migrated store in a temporary DATA_DIR; `env` overrides settings. */
export async function buildApi(env: Record<string, string> = {}): Promise<InProcessApi> {
  const dataDir = mkdtempSync(join(tmpdir(), "renderd-api-"));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent", ...env });
  const clock = new ManualClock("2026-03-10T10:00:00.000Z");
  const log = createLogger("silent");
  const store = openStore(dataDir);
  await migrate(store, clock);
  const files = new SpooledFiles(new DiskFiles(dataDir), store, clock);
  const queue = new StoreQueue(store, clock, config.renderLeaseMs);
  const worker = new RenderWorker({ store, clock, log, files, queue, pool: new RenderPool(poolOptions(config, log)), concurrency: 1, retentionDays: 30 });
  return {
    // Neither is started: nothing here renders or converts.
    api: createApi({ config, store, clock, log, files, space: new Space({ dataDir, minFreeBytes: config.storageMinFreeBytes, log }), worker, conversions: new ConversionRunner({ store, clock, log, files, namer: namerOptions(config) }) }),
    dataDir,
    store,
    clock,
    files,
    queue,
    async close(keepDataDir = false) {
      await files.close();
      await store.close();
      if (!keepDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
