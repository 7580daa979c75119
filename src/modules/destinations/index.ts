/** destinations routes (issue 14): every operation needs `destination:manage`; credentials are never answered. */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf } from "../../auth/principal";
import { IdParams, Page } from "../../http/schemas";
import type { RequestMeta } from "../../http/request-meta";
import { DELIVERY_TIMEOUT_MS } from "../../destinations/dispatcher";
import { hostOptions } from "../../destinations/hosts";
import { CreateDestinationBody, Destination, DestinationDeleted, DestinationDelivery, DestinationListQuery, DestinationTestResult, UpdateDestinationBody } from "./model";
import { listDestinationDeliveries } from "./deliveries";
import { createDestination, deleteDestination, getDestination, listDestinations, testDestination, updateDestination, type DestinationDeps } from "./service";

const manage = { scope: "destination:manage" } as const;

/** destinationRoutes mounts /v1/destinations. */
export function destinationRoutes(app: AppContext, auth: AuthPlugin, meta: RequestMeta) {
  const deps: DestinationDeps = { secretKey: app.config.secretKey, hosts: hostOptions(app.config, app.resolve), timeoutMs: DELIVERY_TIMEOUT_MS };
  const { store, clock } = app;
  return new Elysia({ normalize: false })
    .use(auth)
    .post(
      "/v1/destinations",
      async ({ body, principal, request, set }) => {
        const created = await createDestination(store, clock, meta.change(request, principal), workspaceOf(principal), body, deps);
        set.status = 201;
        return created;
      },
      { auth: manage, body: CreateDestinationBody, response: { 201: Destination } },
    )
    .get("/v1/destinations", ({ query, principal }) => listDestinations(store, workspaceOf(principal), query, deps.secretKey), {
      auth: manage,
      query: DestinationListQuery,
      response: Page(Destination),
    })
    .get("/v1/destinations/:id", ({ params, principal }) => getDestination(store, workspaceOf(principal), params.id, deps.secretKey), {
      auth: manage,
      params: IdParams,
      response: Destination,
    })
    .patch(
      "/v1/destinations/:id",
      ({ params, body, principal, request }) => updateDestination(store, clock, meta.change(request, principal), workspaceOf(principal), params.id, body, deps),
      { auth: manage, params: IdParams, body: UpdateDestinationBody, response: Destination },
    )
    .delete(
      "/v1/destinations/:id",
      ({ params, principal, request }) => deleteDestination(store, clock, meta.change(request, principal), workspaceOf(principal), params.id),
      // Stopping deliveries is allowed while suspended, like deleting a webhook endpoint (docs/decisions.md).
      { auth: { ...manage, whileSuspended: true }, params: IdParams, response: DestinationDeleted },
    )
    .post("/v1/destinations/:id/test", ({ params, principal }) => testDestination(store, clock, workspaceOf(principal), params.id, deps), {
      auth: manage,
      params: IdParams,
      response: DestinationTestResult,
    })
    .get(
      "/v1/destinations/:id/deliveries",
      ({ params, query, principal }) => listDestinationDeliveries(store, workspaceOf(principal), params.id, query),
      { auth: manage, params: IdParams, query: DestinationListQuery, response: Page(DestinationDelivery) },
    );
}
