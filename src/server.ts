/** server: config → store → migrate → app → listen → first start; and the graceful stop. */
import type { Server } from "bun";
import type { Logger } from "pino";
import { createApi, type Api } from "./app";
import { applyFirstStart, planFirstStart, type FirstStart } from "./bootstrap";
import { ensureDataDir, type Config } from "./config";
import { consoleHandler } from "./http/console";
import { canonicalRequest } from "./http/request-target";
import { unhandledResponse } from "./http/responses";
import { createLogger } from "./logger";
import { LogTail } from "./lib/log-tail";
import { systemClock, type Clock } from "./lib/clock";
import { startAssetCleanup } from "./modules/assets/cleanup";
import { pdfSealer } from "./modules/renders/seal-pdf";
import { namerOptions } from "./modules/template-conversions/namer";
import { ConversionRunner } from "./modules/template-conversions/runner";
import { poolOptions, RenderPool } from "./render/pool";
import { StubPool } from "./render/stub-pool";
import { RenderWorker } from "./render/worker";
import { StoreQueue } from "./queue/store-queue";
import { Metrics } from "./metrics/metrics";
import { internalHandler, type LiveState } from "./modules/health/internal";
import { openSpooledFiles } from "./store/open-files";
import type { SpooledFiles } from "./store/output-spool";
import { redisAddress, RedisCounters } from "./http/redis-counters";
import { openMigratedStore } from "./store/open";
import { freeBytesOf, Space, storageFailure } from "./store/space";
import type { Store } from "./store/store";
import { destinationOptions, type Resolver } from "./webhooks/destinations";
import { Dispatcher } from "./webhooks/dispatcher";
import { DeliveryDispatcher } from "./destinations/dispatcher";
import { hostOptions } from "./destinations/hosts";
import { VERSION } from "./version";
import { startTracing } from "./tracing/tracing";

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
  /** Where the log lines `renderd tui` follows are kept: written by the logger made here; a test passing `log` may pass
   * the tail that logger writes to. */
  logTail?: LogTail;
}

export interface RunningServer {
  url: string;
  port: number;
  internalPort: number;
  store: Store;
  /** files is the file store (assets and PDFs): under DATA_DIR, or the S3 bucket (store/open-files.ts), with the PDFs
   * spooled in the store until they are written there (store/output-spool.ts). */
  files: SpooledFiles;
  /** webhooks is the delivery dispatcher; `webhooks.runOnce()` sends what is due now (tests, benchmarks). */
  webhooks: Dispatcher;
  /** deliveries sends renders' files to their destinations; `deliveries.runOnce()` sends what is due now (tests). */
  deliveries: DeliveryDispatcher;
  /** pendingRequests answers how many requests the public port is answering now (a stop lets these finish). */
  pendingRequests(): number;
  /** pool is the supervised Chromium pool (its browsers' pids and stats are for operators and tests). */
  pool: RenderPool;
  /** worker runs the render queue on the pool. */
  worker: RenderWorker;
  /** conversions runs the template conversions (`conversions.idle()` waits for the queue to empty: tests). */
  conversions: ConversionRunner;
  /** api is the public port's handler (its route list is read by tests). */
  api: Api;
  /** metrics is what /metrics on the internal port exposes. */
  metrics: Metrics;
  /** stop stops accepting, lets in-flight requests and renders finish (renders for up to SHUTDOWN_GRACE_MS; the rest go
   * back to the queue), then closes Chromium and the store. */
  stop(): Promise<void>;
}

// Long enough for a render waited on with ?wait=60 (DESIGN.md 4); Bun's default is 10 s.
const IDLE_TIMEOUT_SECONDS = 120;
// Bun answers a body declared over its limit (128 MiB by default) with an empty 413 before any handler runs. Every
// reader of a body has its own, lower cap and refuses from the declared length before reading (http/body.ts,
// assets/service.ts), so the limit is lifted: those answers are 413 LIMIT_EXCEEDED in the envelope (docs/security.md).
const MAX_REQUEST_BODY_BYTES = Number.MAX_SAFE_INTEGER;

/** startServer opens the store, applies migrations and listens on the public and internal ports. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logTail = options.logTail ?? new LogTail();
  const log = options.log ?? createLogger(config.logLevel, undefined, logTail);
  ensureDataDir(config);
  const space = new Space({ dataDir: config.dataDir, minFreeBytes: config.storageMinFreeBytes, log });
  const { store, applied } = await openMigratedStore(config, clock).catch((e: unknown) => {
    // A store closed cleanly has no write-ahead log: with no room left at all SQLite cannot make one, even to read.
    if (!storageFailure(e)) throw e;
    throw new Error(`the store under DATA_DIR=${config.dataDir} cannot be opened (${(e as Error).message}) with ${freeBytesOf(config.dataDir)} bytes free: free space there and start again (docs/operations.md "When the disk fills").`);
  });
  const files = openSpooledFiles(config, store, clock);
  const counters = config.redisUrl ? new RedisCounters(config.redisUrl) : undefined;
  let cleanup: { stop(): void } | undefined;
  let pool: RenderPool | undefined;
  let worker: RenderWorker | undefined;
  let conversions: ConversionRunner | undefined;
  let publicServer: Server<undefined> | undefined;
  let internalServer: Server<undefined> | undefined;
  let api: Api | undefined;
  const metrics = new Metrics();
  const tracing = startTracing(config.otelExporterOtlpEndpoint, config.otelBspScheduleDelay);
  const startedAt = new Date();
  let draining = false;
  let firstStart: Promise<FirstStart | null> | null = null;
  try {
    // An unreachable Redis is a state, not a bad setting (docs/scale-out.md): said once here, then in /health.
    if (counters && config.redisUrl && !(await counters.ping()))
      log.warn({ redis: redisAddress(config.redisUrl) }, "REDIS_URL does not answer: serving on, rate limits counted in this process until it does; /health answers 503 naming redis");
    if (applied.length) log.info({ migrations: applied }, "migrations applied");
    const plan = await planFirstStart(store, { email: config.adminEmail, password: config.adminPassword });
    // The pool runs on real time whatever the clock: its deadlines and watchdog are about Chromium, not the calendar.
    // RENDERD_BENCH_PRINT_MS: bench/cluster.ts's print of a fixed cost (render/stub-pool.ts); not an operator's setting.
    const benchPrintMs = process.env.RENDERD_BENCH_PRINT_MS;
    pool = benchPrintMs ? new StubPool(poolOptions(config, log), Number(benchPrintMs)) : new RenderPool(poolOptions(config, log));
    await pool.start();
    const sealPdf = pdfSealer({ store, clock, secretKey: config.secretKey, timestampUrl: config.signatureTimestampUrl, maxOutputBytes: pool.maxOutputBytes });
    const queue = new StoreQueue(store, clock, config.renderLeaseMs, tracing);
    worker = new RenderWorker({ store, clock, log, files, pool, metrics, tracing, queue, concurrency: config.renderWorkers, retentionDays: config.retentionDays, sealPdf });
    await worker.start();
    conversions = new ConversionRunner({ store, clock, log, files, namer: namerOptions(config) });
    conversions.start();
    const handler = createApi({ config, store, clock, log, files, space, worker, conversions, metrics, tracing, counters, resolve: options.resolve });
    api = handler;
    const consolePage = consoleHandler();
    cleanup = startAssetCleanup({ store, clock, config, files }, log);
    publicServer = Bun.serve({
      hostname: config.host,
      port: config.port,
      idleTimeout: IDLE_TIMEOUT_SECONDS,
      maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
      development: false,
      error: unhandledResponse(log),
      fetch: async (request, server) => {
        // A request that arrives while the first start's administrator is being written waits for it.
        if (firstStart) await firstStart;
        const address = server.requestIP(request)?.address;
        // The console reads the same canonical path as the API (http/request-target.ts); handle refuses an unreadable target.
        const canonical = canonicalRequest(request);
        return (canonical && (await consolePage(canonical))) ?? handler.handle(canonical ?? request, address);
      },
    });
    const livePool = pool;
    const liveWorker = worker;
    metrics.attach({
      pool: () => livePool.stats(),
      queue: () => liveWorker.queue.depth(),
      webhookBacklog: async () => (await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'"))!.n,
      dataDirFreeBytes: () => space.status().freeBytes,
      outputSpool: () => files.backlog(),
    });
    const state = (): LiveState => {
      const p = livePool.stats();
      return {
        version: VERSION,
        pid: process.pid,
        startedAt: startedAt.toISOString(),
        draining,
        paused: liveWorker.paused,
        pool: { state: p.state, size: p.size, busy: p.busy, idle: p.idle, recycling: p.preparing, waiting: p.waiting, browserRestarts: p.browserRestarts, rssBytes: p.rssBytes },
        inFlight: liveWorker.inFlight().map((r) => ({ ...r, startedAt: r.startedAt.toISOString() })),
        storage: space.status(),
      };
    };
    internalServer = Bun.serve({
      hostname: "127.0.0.1",
      port: config.internalPort,
      development: false,
      // The Logs tab follows /internal/logs for as long as it is open; stop() ends those answers (logTail.close()).
      idleTimeout: 0,
      error: unhandledResponse(log),
      fetch: internalHandler({
        metrics,
        state,
        logs: logTail,
        pause(on) {
          liveWorker.pause(on);
          log.info({ paused: on }, on ? "queue held by the operator: renders are accepted, none is claimed" : "queue released by the operator");
        },
      }),
    });
    // Only now, with both ports bound: a first start that fails earlier (Chromium, a taken port) creates no administrator
    // whose generated password nobody saw; the next start generates and prints one (docs/operations.md). Requests wait
    // for it (above), so none is served before the administrator exists.
    firstStart = plan ? applyFirstStart(store, clock, plan) : null;
    const first = await firstStart;
    firstStart = null;
    if (first) {
      log.info({ email: first.email }, "first start: created workspace default and its administrator");
      options.onFirstStart?.(first);
    }
    space.watch();
  } catch (e) {
    cleanup?.stop();
    publicServer?.stop(true);
    internalServer?.stop(true);
    await worker?.stop();
    await conversions?.stop();
    await pool?.stop();
    counters?.close();
    await tracing.shutdown();
    await store.close();
    throw e;
  }
  const pub = publicServer;
  const internal = internalServer;
  const renderPool = pool;
  const renderWorker = worker;
  const conversionRunner = conversions;
  const webhooks = new Dispatcher({
    store,
    clock,
    log,
    secretKey: config.secretKey,
    destinations: destinationOptions(config, options.resolve),
    retentionDays: config.retentionDays,
    timeoutMs: options.webhookTimeoutMs,
    metrics,
    tracing,
  });
  webhooks.start();
  const deliveries = new DeliveryDispatcher({ store, clock, log, files, tracing, secretKey: config.secretKey, hosts: hostOptions(config, options.resolve) });
  deliveries.start();
  log.info({ port: pub.port, internalPort: internal.port, dataDir: config.dataDir }, "renderd listening");
  let stopping: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${pub.port}`,
    port: pub.port!,
    internalPort: internal.port!,
    store,
    files,
    webhooks,
    deliveries,
    pendingRequests: () => pub.pendingRequests,
    pool: renderPool,
    worker: renderWorker,
    conversions: conversionRunner,
    api,
    metrics,
    stop() {
      stopping ??= (async () => {
        draining = true;
        cleanup?.stop();
        // The public port closes at once: no new work is taken (a balancer sees the connection refused and goes
        // elsewhere). The dispatcher finishes its attempts in flight so their outcomes are recorded before the store
        // closes; renders being printed get SHUTDOWN_GRACE_MS to finish, then go back to the queue (and requests waiting
        // on them answer), for the next start to print. The internal port answers until then: the TUI sees the drain.
        await Promise.all([pub.stop(false), webhooks.stop(), deliveries.stop(), renderWorker.stop(config.shutdownGraceMs), conversionRunner.stop()]);
        logTail.close();
        await internal.stop(false);
        await renderPool.stop();
        // The PDFs of the last renders to end are being written to the file store; else the next start writes them.
        await files.close();
        counters?.close();
        // The spans still buffered are sent before the process goes (at most the exporter's timeout).
        await tracing.shutdown().catch((err: unknown) => log.warn({ err }, "sending the last spans failed"));
        space.stop();
        await store.close();
        log.info("renderd stopped");
      })();
      return stopping;
    },
  };
}
