/** workspace routes: render limits and allowances (spec 4.2), platform administration of workspaces (4.3). */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf } from "../../auth/principal";
import { IdParams, NoQuery, Page } from "../../http/schemas";
import type { RequestMeta } from "../../http/request-meta";
import { AllowancesReplacement, CompanyAllowances, PlatformWorkspace, PlatformWorkspaceQuery, RenderLimits } from "./model";
import { usageCounters } from "./counters";
import { getAllowances, getWorkspace, listWorkspaces, replaceAllowances } from "./service";

const platform = { platformAdmin: true } as const;

/** workspaceRoutes mounts /v1/render-limits, /v1/companies/:id/allowances and /v1/platform/workspaces. */
export function workspaceRoutes(app: AppContext, auth: AuthPlugin, meta: RequestMeta) {
  return new Elysia({ normalize: false })
    .use(auth)
    .get(
      "/v1/render-limits",
      async ({ principal }) => {
        const ws = workspaceOf(principal);
        const [allowances, counters] = await Promise.all([getAllowances(app.store, ws), usageCounters(app.store, app.clock, ws)]);
        return { ...allowances, ...counters };
      },
      { auth: { scope: "render:read" }, query: NoQuery, response: RenderLimits },
    )
    .put(
      "/v1/companies/:id/allowances",
      ({ params, body, principal, request }) => replaceAllowances(app.store, app.clock, meta.change(request, principal), params.id, body),
      // It acts on the workspace in the path, whatever the administrator's own: restoring must work even from a suspended one.
      { auth: { ...platform, whileSuspended: true }, params: IdParams, body: AllowancesReplacement, response: CompanyAllowances },
    )
    .get("/v1/platform/workspaces", ({ query }) => listWorkspaces(app.store, query), {
      auth: platform,
      query: PlatformWorkspaceQuery,
      response: Page(PlatformWorkspace),
    })
    .get("/v1/platform/workspaces/:id", ({ params }) => getWorkspace(app.store, params.id), {
      auth: platform,
      params: IdParams,
      response: PlatformWorkspace,
    });
}
