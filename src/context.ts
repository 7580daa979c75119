/** context: what every route and service is built with, made once by server.ts (or a test). */
import type { Logger } from "pino";
import type { Config } from "./config";
import type { Clock } from "./lib/clock";
import type { Store } from "./store/open";

export interface AppContext {
  config: Config;
  store: Store;
  clock: Clock;
  log: Logger;
}
