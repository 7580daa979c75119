/** assets routes (spec 4.5): /v1/assets for registering, listing, reading and deleting, and the signed addresses
 * outside /v1/ that take an upload and serve a download (no key or cookie: the token in the address is the credential). */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../auth/plugin";
import { authorize, workspaceOf } from "../../auth/principal";
import { fileBody, fileResponse, tokenParameter } from "../../http/openapi";
import { IdParams, Page } from "../../http/schemas";
import type { RequestMeta } from "../../http/request-meta";
import { downloadResponse } from "./download";
import { Asset, AssetCreated, AssetDeleted, AssetDetail, AssetListQuery, MEDIA_TYPES, RegisterAssetBody } from "./model";
import { deleteAsset, getAsset, listAssets, openDownload, receiveUpload, registerAsset, registrationNeed, type AssetDeps } from "./service";

const manage = { scope: "asset:manage" } as const;

function deps(app: AppContext): AssetDeps {
  return { store: app.store, clock: app.clock, config: app.config, files: app.files };
}

/** assetRoutes mounts /v1/assets. */
export function assetRoutes(app: AppContext, auth: AuthPlugin, meta: RequestMeta) {
  const d = deps(app);
  return new Elysia({ normalize: false })
    .use(auth)
    .post(
      "/v1/assets",
      ({ body, principal, request, set }) => {
        // The route lets in either scope; the body's kind decides which one this registration needs.
        authorize(app, request, principal, registrationNeed(body.kind));
        set.status = 201;
        return registerAsset(d, meta.change(request, principal), workspaceOf(principal), body);
      },
      { auth: { anyScope: ["asset:manage", "template:content"] }, beforeHandle: app.space.assertRoom, body: RegisterAssetBody, response: { 201: AssetCreated } },
    )
    .get("/v1/assets", ({ query, principal }) => listAssets(app.store, workspaceOf(principal), query), {
      auth: manage,
      query: AssetListQuery,
      response: Page(Asset),
    })
    .get("/v1/assets/:id", ({ params, principal }) => getAsset(d, workspaceOf(principal), params.id), {
      auth: manage,
      params: IdParams,
      response: AssetDetail,
    })
    .delete("/v1/assets/:id", ({ params, principal, request }) => deleteAsset(d, meta.change(request, principal), workspaceOf(principal), params.id), {
      auth: manage,
      params: IdParams,
      response: AssetDeleted,
    });
}

/** assetAddressRoutes mounts PUT /uploads/:id and GET /downloads/:id. The upload body is never parsed or buffered
 * (`parse: "none"`): receiveUpload streams it to disk. app.ts mounts these before its JSON body parser, whose hook
 * would otherwise run for them too. */
export function assetAddressRoutes(app: AppContext, meta: RequestMeta) {
  const d = deps(app);
  return new Elysia({ normalize: false })
    .put(
      "/uploads/:id",
      ({ params, query, request }) =>
        receiveUpload(d, meta.of(request).requestId, params.id, query.token, {
          contentLength: request.headers.get("content-length"),
          body: request.body as unknown as AsyncIterable<Uint8Array> | null,
        }),
      {
        parse: "none",
        beforeHandle: app.space.assertRoom,
        response: Asset,
        detail: {
          parameters: [tokenParameter],
          requestBody: fileBody(MEDIA_TYPES),
        },
      },
    )
    .get("/downloads/:id", async ({ params, query, request }) => downloadResponse(await openDownload(d, params.id, query.token), request.headers.get("if-none-match")), {
      detail: { parameters: [tokenParameter], responses: { 200: fileResponse("The asset's bytes, with its media type", MEDIA_TYPES), 304: { description: "Not modified (If-None-Match)" } } },
    });
}
