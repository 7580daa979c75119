/** server: config → store → migrate → first start → app → listen; and the graceful stop. */
import type { Server } from "bun";
import type { Logger } from "pino";
import { createApi, type Api } from "./app";
import { bootstrapIfEmpty, type FirstStart } from "./bootstrap";
import { ensureDataDir, type Config } from "./config";
import { createLogger } from "./logger";
import { systemClock, type Clock } from "./lib/clock";
import { startAssetCleanup } from "./modules/assets/cleanup";
import { poolOptions, RenderPool } from "./render/pool";
import { RenderWorker } from "./render/worker";
import { internalHandle } from "./modules/health/internal";
import { FileStore } from "./store/files";
import { migrate } from "./store/migrate";
import { openStore, type Store } from "./store/open";
import { resolveHost, type Resolver } from "./webhooks/destinations";
import { Dispatcher } from "./webhooks/dispatcher";

export interface ServerOptions {
  config: Config;
  clock?: Clock;
  log?: Logger;
  /** Told once about the first start (the CLI prints it; tests read it). */
  onFirstStart?: (info: FirstStart) => void;
  /** DNS for the webhook destination check; tests inject fake answers (default: the system resolver). */
  resolve?: Resolver;
  /** The webhook response time (spec 6.5: 10 s); lowered only by tests. */
  webhookTimeoutMs?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  internalPort: number;
  store: Store;
  /** files is the file store under DATA_DIR (assets, temporary uploads). */
  files: FileStore;
  /** webhooks is the delivery dispatcher; `webhooks.runOnce()` sends what is due now (tests, benchmarks). */
  webhooks: Dispatcher;
  /** pool is the supervised Chromium pool (its browsers' pids and stats are for operators and tests). */
  pool: RenderPool;
  /** worker runs the render queue on the pool. */
  worker: RenderWorker;
  /** api is the public port's handler (its route list is read by tests). */
  api: Api;
  /** stop stops accepting, lets in-flight requests finish, then closes the store. */
  stop(): Promise<void>;
}

// Long enough for a render waited on with ?wait=60 (DESIGN.md 4); Bun's default is 10 s.
const IDLE_TIMEOUT_SECONDS = 120;

/** startServer opens the store, applies migrations and listens on the public and internal ports. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const log = options.log ?? createLogger(config.logLevel);
  ensureDataDir(config);
  const files = new FileStore(config.dataDir);
  const store = openStore(config.dataDir);
  let cleanup: { stop(): void } | undefined;
  let pool: RenderPool | undefined;
  let worker: RenderWorker | undefined;
  let publicServer: Server<undefined> | undefined;
  let internalServer: Server<undefined> | undefined;
  let api: Api | undefined;
  try {
    const applied = migrate(store, clock);
    if (applied.length) log.info({ migrations: applied }, "migrations applied");
    const first = await bootstrapIfEmpty(store, clock, { email: config.adminEmail, password: config.adminPassword });
    if (first) {
      log.info({ email: first.email }, "first start: created workspace default and its administrator");
      options.onFirstStart?.(first);
    }
    // The pool runs on real time whatever the clock: its deadlines and watchdog are about Chromium, not the calendar.
    pool = new RenderPool(poolOptions(config, log));
    await pool.start();
    worker = new RenderWorker({ store, clock, log, files, pool, concurrency: config.renderWorkers, retentionDays: config.retentionDays });
    worker.start();
    const handler = createApi({ config, store, clock, log, files, worker, resolve: options.resolve });
    api = handler;
    cleanup = startAssetCleanup({ store, clock, config, files }, log);
    publicServer = Bun.serve({
      hostname: config.host,
      port: config.port,
      idleTimeout: IDLE_TIMEOUT_SECONDS,
      fetch: (request, server) => handler.handle(request, server.requestIP(request)?.address),
    });
    internalServer = Bun.serve({ hostname: "127.0.0.1", port: config.internalPort, fetch: internalHandle });
  } catch (e) {
    cleanup?.stop();
    publicServer?.stop(true);
    await worker?.stop();
    await pool?.stop();
    store.close();
    throw e;
  }
  const pub = publicServer;
  const internal = internalServer;
  const renderPool = pool;
  const renderWorker = worker;
  const webhooks = new Dispatcher({
    store,
    clock,
    log,
    secretKey: config.secretKey,
    destinations: { allowHttp: config.webhookAllowHttp, allowPrivate: config.webhookAllowPrivate, resolve: options.resolve ?? resolveHost },
    retentionDays: config.retentionDays,
    timeoutMs: options.webhookTimeoutMs,
  });
  webhooks.start();
  log.info({ port: pub.port, internalPort: internal.port, dataDir: config.dataDir }, "renderd listening");
  let stopping: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${pub.port}`,
    port: pub.port!,
    internalPort: internal.port!,
    store,
    files,
    webhooks,
    pool: renderPool,
    worker: renderWorker,
    api,
    stop() {
      stopping ??= (async () => {
        cleanup?.stop();
        // The dispatcher finishes its attempts in flight so their outcomes are recorded before the store closes; renders
        // being printed go back to the queue (and requests waiting on them answer), for the next start to print.
        await Promise.all([pub.stop(false), internal.stop(false), webhooks.stop(), renderWorker.stop()]);
        await renderPool.stop();
        store.close();
        log.info("renderd stopped");
      })();
      return stopping;
    },
  };
}
