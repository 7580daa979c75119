/** usage routes: a workspace's daily usage (spec 4.8) and every workspace's, for the platform administrator (4.3). */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf } from "../../auth/principal";
import { IdParams } from "../../http/schemas";
import { getWorkspace } from "../workspaces/service";
import { PlatformUsagePage, PlatformUsageQuery, UsageQuery, UsageReport } from "./model";
import { getUsage, listPlatformUsage } from "./service";

/** usageRoutes mounts /v1/usage, /v1/platform/usage and /v1/platform/workspaces/:id/usage. */
export function usageRoutes(app: AppContext, auth: AuthPlugin) {
  return new Elysia({ normalize: false })
    .use(auth)
    .get("/v1/usage", ({ query, principal }) => getUsage(app.store, app.clock, workspaceOf(principal), query), {
      auth: { scope: "usage:read" },
      query: UsageQuery,
      response: UsageReport,
    })
    // One workspace's days for the platform administrator's console (docs/usage.md); the path id may be the slug.
    .get("/v1/platform/workspaces/:id/usage", async ({ params, query }) => getUsage(app.store, app.clock, (await getWorkspace(app.store, params.id)).id, query), {
      auth: { platformAdmin: true },
      params: IdParams,
      query: UsageQuery,
      response: UsageReport,
    })
    .get("/v1/platform/usage", ({ query }) => listPlatformUsage(app.store, app.clock, query), {
      auth: { platformAdmin: true },
      query: PlatformUsageQuery,
      response: PlatformUsagePage,
    });
}
