/** health routes (spec 4.1): readiness on the public port, liveness on the internal one. */
import { Elysia } from "elysia";
import type { Store } from "../../store/open";
import { Ready, Unavailable, type Readiness } from "./model";

/** readiness answers what is unreachable; the embedded store is the only dependency of one appliance (no `redis`). */
export function readiness(store: Store): Readiness {
  return store.ping() ? { status: "ok" } : { status: "unavailable", unavailable: ["database"] };
}

/** healthRoutes mounts GET /health. */
export function healthRoutes(store: Store) {
  return new Elysia({ normalize: false }).get(
    "/health",
    ({ set }) => {
      const body = readiness(store);
      if (body.status !== "ok") set.status = 503;
      return body;
    },
    { response: { 200: Ready, 503: Unavailable } },
  );
}
