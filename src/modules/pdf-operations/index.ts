/** pdf-operations routes (issue 30; docs/pdf.md "Operations on PDFs"): /v1/pdf-operations, the signed address of a
 * split's parts, and /v1/assets/{id}/form-fields. */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf } from "../../auth/principal";
import { IDEMPOTENCY_KEY_PARAMETER, idempotent } from "../../http/idempotency";
import { fileResponse, tokenParameter } from "../../http/openapi";
import { IdParams, Page } from "../../http/schemas";
import { downloadResponse } from "../assets/download";
import { renderDeps } from "../renders/deps";
import { WaitQuery } from "../renders/model";
import { FormFields, OutputParams, PdfOperation, PdfOperationListQuery, PdfOperationRequest } from "./model";
import { cancelOperation, formFields, getOperation, listOperations, openOutput, planOperation, queueOperation, waitForOperation } from "./service";
import { isFinalStatus } from "../../store/render-status";

/** pdfOperationRoutes mounts /v1/pdf-operations and /v1/assets/:id/form-fields. */
export function pdfOperationRoutes(app: AppContext, auth: AuthPlugin) {
  const d = renderDeps(app);
  const once = idempotent(app);
  return new Elysia({ normalize: false })
    .use(auth)
    .post(
      "/v1/pdf-operations",
      (ctx) =>
        once(ctx, async (kept) => {
          const ws = workspaceOf(ctx.principal);
          const planned = await planOperation(d, ws, ctx.body);
          const op = await kept(202, (tx) => queueOperation(d, tx, ws, planned));
          const waited = await waitForOperation(d, ws, op, Number(ctx.query.wait ?? 0));
          ctx.set.status = isFinalStatus(waited.status) ? 200 : 202;
          return waited;
        }),
      {
        auth: { scope: "render:create" },
        beforeHandle: app.space.assertRoom,
        body: PdfOperationRequest,
        query: WaitQuery,
        response: { 200: PdfOperation, 202: PdfOperation },
        detail: { parameters: [IDEMPOTENCY_KEY_PARAMETER] },
      },
    )
    .get("/v1/pdf-operations", ({ query, principal }) => listOperations(d, workspaceOf(principal), query), {
      auth: { scope: "render:read" },
      query: PdfOperationListQuery,
      response: Page(PdfOperation),
    })
    .get("/v1/pdf-operations/:id", async ({ params, query, principal }) => waitForOperation(d, workspaceOf(principal), await getOperation(d, workspaceOf(principal), params.id), Number(query.wait ?? 0)), {
      auth: { scope: "render:read" },
      params: IdParams,
      query: WaitQuery,
      response: PdfOperation,
    })
    .post("/v1/pdf-operations/:id/cancel", ({ params, principal }) => cancelOperation(d, workspaceOf(principal), params.id), {
      // As for renders: stopping work is allowed while suspended.
      auth: { scope: "render:cancel", whileSuspended: true },
      params: IdParams,
      response: PdfOperation,
    })
    .get("/v1/assets/:id/form-fields", ({ params, principal }) => formFields(d, workspaceOf(principal), params.id), {
      // Whoever may fill a form may see its fields.
      auth: { anyScope: ["asset:manage", "render:create"] },
      params: IdParams,
      response: FormFields,
    });
}

/** pdfOperationOutputRoutes mounts GET /results/:id/outputs/:i, the signed address of an operation's i-th PDF. */
export function pdfOperationOutputRoutes(app: AppContext) {
  const d = renderDeps(app);
  return new Elysia({ normalize: false }).get(
    "/results/:id/outputs/:i",
    async ({ params, query, request }) => downloadResponse(await openOutput(d, params.id, Number(params.i), query.token), request.headers.get("if-none-match")),
    { params: OutputParams, detail: { parameters: [tokenParameter], responses: { 200: fileResponse("One PDF of a PDF operation (a split's part)", ["application/pdf"]) } } },
  );
}
