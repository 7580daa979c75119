/** health routes (spec 4.1): readiness on the public port, liveness on the internal one. */
import type { Static } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { WindowCounters } from "../../http/rate-limit";
import type { Store } from "../../store/store";
import { Ready, Unavailable, type Readiness } from "./model";

/** readiness answers what is unreachable: the store, and Redis when the rate counters live there (REDIS_URL). Redis
 * down does not stop serving (each process counts alone meanwhile, http/rate-limit.ts), but the limits no longer hold
 * across processes: spec 4.1 names it, for the alerting (docs/decisions.md "Health"). */
export async function readiness(store: Store, counters?: WindowCounters): Promise<Readiness> {
  const unavailable: Static<typeof Unavailable>["unavailable"] = [];
  const [database, redis] = await Promise.all([store.ping(), counters?.ping ? counters.ping() : true]);
  if (!database) unavailable.push("database");
  if (!redis) unavailable.push("redis");
  return unavailable.length ? { status: "unavailable", unavailable } : { status: "ok" };
}

/** healthRoutes mounts GET /health. */
export function healthRoutes(store: Store, counters?: WindowCounters) {
  return new Elysia({ normalize: false }).get(
    "/health",
    async ({ set }) => {
      const body = await readiness(store, counters);
      if (body.status !== "ok") set.status = 503;
      return body;
    },
    { response: { 200: Ready, 503: Unavailable } },
  );
}
