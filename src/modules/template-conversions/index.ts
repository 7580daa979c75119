/** template-conversions routes (issue 14, docs/conversions.md): `template:write` asks for a template made from a PDF
 * asset, `template:read` follows the conversion. The work itself is the runner's, off the request path. */
import { Elysia } from "elysia";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf } from "../../auth/principal";
import type { AppContext } from "../../context";
import type { RequestMeta } from "../../http/request-meta";
import { IdParams, Page } from "../../http/schemas";
import { ConversionListQuery, ConversionSummary, CreateConversionBody, TemplateConversion } from "./model";
import { createConversion, getConversion, listConversions } from "./service";

/** templateConversionRoutes mounts /v1/template-conversions. */
export function templateConversionRoutes(app: AppContext, auth: AuthPlugin, meta: RequestMeta) {
  return new Elysia({ normalize: false })
    .use(auth)
    .post(
      "/v1/template-conversions",
      async ({ body, principal, request, set }) => {
        const created = await createConversion(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), body);
        app.conversions.kick();
        set.status = 202;
        return created;
      },
      { auth: { scope: "template:write" }, beforeHandle: app.space.assertRoom, body: CreateConversionBody, response: { 202: TemplateConversion } },
    )
    .get("/v1/template-conversions", ({ query, principal }) => listConversions(app.store, workspaceOf(principal), query), {
      auth: { scope: "template:read" },
      query: ConversionListQuery,
      response: Page(ConversionSummary),
    })
    .get("/v1/template-conversions/:id", ({ params, principal }) => getConversion(app.store, workspaceOf(principal), params.id), {
      auth: { scope: "template:read" },
      params: IdParams,
      response: TemplateConversion,
    });
}
