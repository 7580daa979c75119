/** health routes (spec 4.1): readiness on the public port, liveness on the internal one. */
import type { Static } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { WindowCounters } from "../../http/rate-limit";
import type { Space } from "../../store/space";
import type { Store } from "../../store/store";
import { Ready, Unavailable, type Readiness } from "./model";

/** readiness answers what is unreachable: the store, and Redis when the rate counters live there (REDIS_URL). Redis
 * down does not stop serving (each process counts alone meanwhile, http/rate-limit.ts), but the limits no longer hold
 * across processes: spec 4.1 names it, for the alerting (docs/decisions.md "Health"). A store that cannot take growing
 * writes (DATA_DIR short of space, or read-only: store/space.ts) is unavailable too, though reads go on. */
export async function readiness(store: Store, counters?: WindowCounters, space?: Pick<Space, "status">): Promise<Readiness> {
  const unavailable: Static<typeof Unavailable>["unavailable"] = [];
  const [database, redis] = await Promise.all([store.ping(), counters?.ping ? counters.ping() : true]);
  if (!database || space?.status().refusing) unavailable.push("database");
  if (!redis) unavailable.push("redis");
  return unavailable.length ? { status: "unavailable", unavailable } : { status: "ok" };
}

/** healthRoutes mounts GET /health. */
export function healthRoutes(store: Store, counters?: WindowCounters, space?: Pick<Space, "status">) {
  return new Elysia({ normalize: false }).get(
    "/health",
    async ({ set }) => {
      const body = await readiness(store, counters, space);
      if (body.status !== "ok") set.status = 503;
      return body;
    },
    { response: { 200: Ready, 503: Unavailable } },
  );
}
