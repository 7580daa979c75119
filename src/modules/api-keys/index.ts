/** api-keys routes (spec 4.4): create, rotate, revoke and delete need a console session (5.3.2); listing takes a key too. */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf } from "../../auth/principal";
import { IdParams, Page } from "../../http/schemas";
import type { RequestMeta } from "../../http/request-meta";
import { ApiKey, ApiKeyCreated, ApiKeyDeleted, ApiKeyListQuery, ApiKeyRevoked, CreateApiKeyBody } from "./model";
import { createApiKey, deleteApiKey, listApiKeys, revokeApiKey, rotateApiKey } from "./service";

const manage = { scope: "admin:manage", session: true } as const;
// Taking a key's access away is allowed while the workspace is suspended (spec 3.4; docs/decisions.md): a leaked key can be
// disabled before the workspace is restored.
const takeAway = { ...manage, whileSuspended: true } as const;

/** apiKeyRoutes mounts /v1/api-keys. */
export function apiKeyRoutes(app: AppContext, auth: AuthPlugin, meta: RequestMeta) {
  return new Elysia({ normalize: false })
    .use(auth)
    .post(
      "/v1/api-keys",
      ({ body, principal, request, set }) => {
        set.status = 201;
        return createApiKey(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), body);
      },
      { auth: manage, body: CreateApiKeyBody, response: { 201: ApiKeyCreated } },
    )
    .get("/v1/api-keys", ({ query, principal }) => listApiKeys(app.store, workspaceOf(principal), query), {
      auth: { scope: "admin:manage" },
      query: ApiKeyListQuery,
      response: Page(ApiKey),
    })
    .delete("/v1/api-keys/:id", ({ params, principal, request }) => deleteApiKey(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), params.id), {
      auth: takeAway,
      params: IdParams,
      response: ApiKeyDeleted,
    })
    .post("/v1/api-keys/:id/rotate", ({ params, principal, request }) => rotateApiKey(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), params.id), {
      auth: manage,
      params: IdParams,
      response: ApiKeyCreated,
    })
    .post("/v1/api-keys/:id/revoke", ({ params, principal, request }) => revokeApiKey(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), params.id), {
      auth: takeAway,
      params: IdParams,
      response: ApiKeyRevoked,
    });
}
