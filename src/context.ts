/** context: what every route and service is built with, made once by server.ts (or a test). */
import type { Logger } from "pino";
import type { Config } from "./config";
import type { WindowCounters } from "./http/rate-limit";
import type { Clock } from "./lib/clock";
import type { Metrics } from "./metrics/metrics";
import type { RenderWorker } from "./render/worker";
import type { FileStore } from "./store/files";
import type { Space } from "./store/space";
import type { Store } from "./store/store";
import type { Resolver } from "./webhooks/destinations";

export interface AppContext {
  config: Config;
  store: Store;
  clock: Clock;
  log: Logger;
  /** The content-addressed files (assets and PDFs), under DATA_DIR or in a bucket (store/files.ts). */
  files: FileStore;
  /** DATA_DIR's free space: asked before every growing write, told of every write that failed for want of it. */
  space: Space;
  /** The render queue's runner: routes kick it, wait on it and cancel through it. */
  worker: RenderWorker;
  /** The template conversions' runner: a created conversion kicks it (modules/template-conversions/runner.ts). */
  conversions: { kick(): void };
  /** DNS for the webhook destination check (spec 6.7); tests inject fake answers. Default: the system resolver. */
  resolve?: Resolver;
  /** Where the rate limits count (spec 8.3): shared in Redis with REDIS_URL; in this process when absent. */
  counters?: WindowCounters;
  /** Counts requests and refusals for /metrics; absent in tests that do not read it. */
  metrics?: Metrics;
}
