/** renders routes (spec 4.9, DESIGN.md 4): /v1/renders, its batch and cancel, template previews, and the signed result
 * address outside /v1/ that serves a render's PDF (the token in the address is the credential). */
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { IDEMPOTENCY_KEY_PARAMETER, idempotent } from "../../http/idempotency";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf } from "../../auth/principal";
import { IdParams, NoQuery, Page } from "../../http/schemas";
import { fileResponse, jsonBody, jsonResponse, tokenParameter, withJson } from "../../http/openapi";
import { downloadResponse } from "../assets/download";
import { renderActivity } from "./allowances";
import { renderDeps } from "./deps";
import { mergedBatch } from "./merge";
import { BatchCreated, BatchRequest, BatchRequestBody, PreviewQuery, PreviewRequest, PreviewRequestBody, Render, RenderActivity, RenderListQuery, RenderRequest, RenderRequestBody, WaitQuery } from "./model";
import {
  cancelRender,
  createBatch,
  createPreview,
  createRender,
  getRender,
  isFinal,
  listRenders,
  openResult,
  previewHtml,
  resultOf,
  waitForRender,
} from "./service";
import { planBatch, planRender } from "./plan";
import { openPageImage, PageImageAddressQuery, PageImageQuery, PageParams, renderPageImage } from "./page-images";
import { MEDIA_TYPE_OF_FORMAT } from "../../pdf/rasterize";
import type { RequestMeta } from "../../http/request-meta";

const PAGE_IMAGE_TYPES = Object.values(MEDIA_TYPE_OF_FORMAT);

// A preview answers the PDF itself; it waits as long as a render may take, within the ?wait bound.
const PREVIEW_WAIT_SECONDS = 60;

/** renderRoutes mounts /v1/renders, /v1/render-activity and /v1/templates/:id/preview. */
export function renderRoutes(app: AppContext, auth: AuthPlugin, meta: RequestMeta) {
  const d = renderDeps(app);
  const once = idempotent(app);
  return new Elysia({ normalize: false })
    .use(auth)
    .post(
      "/v1/renders",
      (ctx) =>
        once(ctx, async (kept) => {
          const { query, principal, set } = ctx;
          // Elysia types the unchecked `document` as unknown; planning checks it node by node before it is used.
          const body = ctx.body as RenderRequest;
          const ws = workspaceOf(principal);
          const seconds = Number(query.wait ?? 0);
          // With ?wait the render is acknowledged by the answer after the wait, not before it: its acceptance commits
          // without waiting for the disk, and waitForRender answers only once it is durable (docs/rendering.md).
          const accepted = { durable: seconds === 0 };
          const plan = await planRender(d, ws, body);
          // With a page free, Chromium prints while the acceptance is written (RenderWorker.printAhead).
          const ahead = d.worker.printAhead(ws, plan.job);
          let render: Render;
          try {
            render = await kept(202, (tx) => createRender(d, tx, ws, { ...plan, ahead }), accepted);
          } finally {
            if (ahead) d.worker.letGo(ahead);
          }
          // Timed from the request's arrival, to the hundredth of a ms, for the request's log line: renderd's own
          // milliseconds at concurrency 1 are the acceptance, the wait less the print, and the answer.
          const { laps } = meta.of(ctx.request);
          laps.lap("accept");
          const waited = seconds === 0 ? render : await waitForRender(d, ws, render, seconds, accepted);
          if (seconds > 0) laps.lap("wait");
          // DESIGN.md 4: 202 while the render is on its way, 200 once it has ended.
          set.status = isFinal(waited) ? 200 : 202;
          return waited;
        }),
      {
        auth: { scope: "render:create" },
        beforeHandle: app.space.assertRoom,
        body: RenderRequestBody,
        query: WaitQuery,
        response: { 200: Render, 202: Render },
        detail: { requestBody: jsonBody(RenderRequest), parameters: [IDEMPOTENCY_KEY_PARAMETER] },
      },
    )
    .post(
      "/v1/renders/batch",
      (ctx) =>
        once(ctx, async (kept) => {
          ctx.set.status = 202;
          const ws = workspaceOf(ctx.principal);
          const items = ctx.body.items as RenderRequest[]; // as for POST /v1/renders
          const plans = await planBatch(d, ws, items);
          return kept(202, (tx) => createBatch(d, tx, ws, plans, ctx.body.merge));
        }),
      { auth: { scope: "render:create" }, beforeHandle: app.space.assertRoom, body: BatchRequestBody, response: { 202: BatchCreated }, detail: { requestBody: jsonBody(BatchRequest), parameters: [IDEMPOTENCY_KEY_PARAMETER] } },
    )
    .get("/v1/renders/batch/:id/merged", async ({ params, principal }) => mergedBatch(d, workspaceOf(principal), params.id), {
      auth: { scope: "render:read" },
      params: IdParams,
      query: NoQuery,
      detail: { responses: { 200: fileResponse("The batch's items as one PDF, in item order (a batch created with merge: true, once every item has succeeded)", ["application/pdf"]) } },
    })
    .get("/v1/renders/:id/pages/:n", ({ params, query, principal }) => renderPageImage(d, workspaceOf(principal), params.id, params.n, query), {
      auth: { scope: "render:read" },
      params: PageParams,
      query: PageImageQuery,
      detail: { responses: { 200: fileResponse("Page n of the render's PDF as an image, drawn once and kept", PAGE_IMAGE_TYPES) } },
    })
    .get("/v1/renders", ({ query, principal }) => listRenders(d, workspaceOf(principal), query), {
      auth: { scope: "render:read" },
      query: RenderListQuery,
      response: Page(Render),
    })
    .get("/v1/renders/:id", ({ params, principal }) => getRender(d, workspaceOf(principal), params.id), {
      auth: { scope: "render:read" },
      params: IdParams,
      response: Render,
    })
    .get("/v1/render-activity", ({ principal }) => renderActivity(app.store, app.clock, workspaceOf(principal)), {
      auth: { scope: "render:read" },
      query: NoQuery,
      response: RenderActivity,
    })
    .post("/v1/renders/:id/cancel", ({ params, principal }) => cancelRender(d, workspaceOf(principal), params.id), {
      // Stopping work is allowed while suspended (docs/decisions.md): a queued render would otherwise print on restoration.
      auth: { scope: "render:cancel", whileSuspended: true },
      params: IdParams,
      response: Render,
    })
    .post(
      "/v1/templates/:id/preview",
      async ({ params, body, query, principal, set }) => {
        const ws = workspaceOf(principal);
        // Elysia types the unchecked `draft` as unknown; planning checks it as a saved draft is checked.
        const request = (body ?? {}) as PreviewRequest;
        if (query.format === "html") {
          const html = await previewHtml(d, ws, params.id, request);
          return new Response(html, { headers: { "content-type": "text/html; charset=utf-8", "x-content-type-options": "nosniff" } });
        }
        const created = await createPreview(d, ws, params.id, request);
        const render = await waitForRender(d, ws, created, PREVIEW_WAIT_SECONDS);
        if (render.status !== "succeeded") {
          set.status = isFinal(render) ? 200 : 202;
          return render;
        }
        return new Response((await resultOf(d, render.id)).file.body(), { headers: { "content-type": "application/pdf", "x-render-id": render.id } });
      },
      {
        auth: { scope: "render:create" },
        beforeHandle: app.space.assertRoom,
        params: IdParams,
        body: Type.Optional(PreviewRequestBody),
        query: PreviewQuery,
        detail: {
          requestBody: jsonBody(PreviewRequest, false),
          responses: {
            200: withJson(fileResponse("The preview: the PDF, its HTML with ?format=html, or the Render when it did not succeed", ["application/pdf", "text/html"]), Render),
            202: jsonResponse("The preview's render, still on its way after the wait", Render),
          },
        },
      },
    );
}

/** renderResultRoutes mounts GET /results/:id, the signed address of a render's PDF. */
export function renderResultRoutes(app: AppContext) {
  const d = renderDeps(app);
  return new Elysia({ normalize: false })
    .get(
      "/results/:id",
      async ({ params, query, request }) => downloadResponse(await openResult(d, params.id, query.token), request.headers.get("if-none-match")),
      { detail: { parameters: [tokenParameter], responses: { 200: fileResponse("The render's PDF", ["application/pdf"]), 304: { description: "Not modified (If-None-Match)" } } } },
    )
    .get("/results/:id/pages/:n", ({ params, query }) => openPageImage(d, params.id, params.n, query), {
      params: PageParams,
      query: PageImageAddressQuery,
      detail: { responses: { 200: fileResponse("Page n of the render's PDF as an image (result.pageImageUrl)", PAGE_IMAGE_TYPES) } },
    });
}
