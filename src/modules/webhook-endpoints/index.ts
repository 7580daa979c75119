/** webhook-endpoints routes (spec 4.7): every operation needs `webhook:manage`; the secret is answered only by create and rotate. */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf } from "../../auth/principal";
import { IdParams, Page } from "../../http/schemas";
import type { RequestMeta } from "../../http/request-meta";
import { destinationOptions } from "../../webhooks/destinations";
import {
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointDeleted,
  WebhookEndpointWithSecret,
  WebhookListQuery,
} from "./model";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type EndpointDeps,
} from "./service";

const manage = { scope: "webhook:manage" } as const;

/** webhookEndpointRoutes mounts /v1/webhook-endpoints. */
export function webhookEndpointRoutes(app: AppContext, auth: AuthPlugin, meta: RequestMeta) {
  const deps: EndpointDeps = {
    secretKey: app.config.secretKey,
    destinations: destinationOptions(app.config, app.resolve),
  };
  return new Elysia({ normalize: false })
    .use(auth)
    .post(
      "/v1/webhook-endpoints",
      async ({ body, principal, request, set }) => {
        const created = await createWebhookEndpoint(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), body, deps);
        set.status = 201;
        return created;
      },
      { auth: manage, body: CreateWebhookEndpointBody, response: { 201: WebhookEndpointWithSecret } },
    )
    .get("/v1/webhook-endpoints", ({ query, principal }) => listWebhookEndpoints(app.store, workspaceOf(principal), query), {
      auth: manage,
      query: WebhookListQuery,
      response: Page(WebhookEndpoint),
    })
    .get("/v1/webhook-endpoints/:id", ({ params, principal }) => getWebhookEndpoint(app.store, workspaceOf(principal), params.id), {
      auth: manage,
      params: IdParams,
      response: WebhookEndpoint,
    })
    .patch(
      "/v1/webhook-endpoints/:id",
      ({ params, body, principal, request }) =>
        updateWebhookEndpoint(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), params.id, body, deps),
      { auth: manage, params: IdParams, body: UpdateWebhookEndpointBody, response: WebhookEndpoint },
    )
    .delete(
      "/v1/webhook-endpoints/:id",
      ({ params, principal, request }) => deleteWebhookEndpoint(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), params.id),
      // Stopping deliveries to a URL is allowed while suspended (docs/decisions.md), like revoking a key.
      { auth: { ...manage, whileSuspended: true }, params: IdParams, response: WebhookEndpointDeleted },
    )
    .post(
      "/v1/webhook-endpoints/:id/rotate-secret",
      ({ params, principal, request }) => rotateWebhookSecret(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), params.id, deps),
      { auth: manage, params: IdParams, response: WebhookEndpointWithSecret },
    )
    .get(
      "/v1/webhook-endpoints/:id/deliveries",
      ({ params, query, principal }) => listWebhookDeliveries(app.store, workspaceOf(principal), params.id, query),
      { auth: manage, params: IdParams, query: WebhookListQuery, response: Page(WebhookDelivery) },
    );
}
