/** templates routes (DESIGN.md 4): `template:read` reads, `template:write` edits the draft, `template:publish` freezes
 * it as a version. Bodies are checked by parseBody, not the route schema, so a bad node is reported where it is.
 * Answers that carry a draft declare no response schema: Elysia's type inference turns the recursive node into
 * `never`, and the draft was checked on the way in. Those bodies and answers reach the OpenAPI document through `detail`. */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf } from "../../auth/principal";
import { IdParams, NoQuery, Page } from "../../http/schemas";
import { IF_MATCH_PARAMETER, ifMatchTags } from "../../http/conditional";
import { fileResponse, jsonBody, jsonResponse } from "../../http/openapi";
import type { RequestMeta } from "../../http/request-meta";
import {
  CreateTemplateBody,
  parseBody,
  StarterParams,
  Template,
  TemplateDeleted,
  TemplateListQuery,
  TemplateStarter,
  TemplateSummary,
  TemplateVersion,
  TemplateVersionSummary,
  UpdateTemplateBody,
  VersionParams,
} from "./model";
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  getTemplateVersion,
  listTemplates,
  listTemplateVersions,
  publishTemplate,
  updateTemplate,
  type TaggedTemplate,
} from "./service";
import { templateStarters } from "./starters";
import { starterPdf } from "./starter-pdf";

const read = { scope: "template:read" } as const;
const write = { scope: "template:write" } as const;
const publish = { scope: "template:publish" } as const;

/** tagged answers the template and sends its ETag, which a later PATCH names in If-Match (docs/authoring.md). */
function tagged(set: { headers: Record<string, unknown> }, { template, etag }: TaggedTemplate) {
  set.headers.etag = etag;
  return template;
}

// How the answers that carry a template describe the header in the OpenAPI document.
const withEtag = (description: string) => ({
  ...jsonResponse(description, Template),
  headers: { ETag: { description: "The template's name, description and draft as they are now: send it as If-Match with a PATCH.", schema: { type: "string" as const } } },
});

/** templateRoutes mounts /v1/templates and /v1/template-starters. */
export function templateRoutes(app: AppContext, auth: AuthPlugin, meta: RequestMeta) {
  return new Elysia({ normalize: false })
    .use(auth)
    .post(
      "/v1/templates",
      async ({ body, principal, request, set }) => {
        const input = parseBody(CreateTemplateBody, body);
        const created = await app.store.tx((tx) => createTemplate(tx, app.clock, meta.change(request, principal), workspaceOf(principal), input));
        set.status = 201;
        return tagged(set, created);
      },
      { auth: write, beforeHandle: app.space.assertRoom, detail: { requestBody: jsonBody(CreateTemplateBody), responses: { 201: withEtag("The template, created") } } },
    )
    .get("/v1/template-starters", () => ({ items: templateStarters() }), {
      auth: read,
      query: NoQuery,
      detail: { responses: { 200: jsonResponse("Every starter: a complete draft to begin a template from (POST /v1/templates with starter)", Page(TemplateStarter)) } },
    })
    .get(
      "/v1/template-starters/:id/pdf",
      async ({ params }) =>
        new Response(await starterPdf(app.worker, params.id), {
          // The same bytes for every caller until the executable changes; a browser may keep them for the session.
          headers: { "content-type": "application/pdf", "cache-control": "private, max-age=3600" },
        }),
      {
        auth: read,
        params: StarterParams,
        query: NoQuery,
        detail: { responses: { 200: fileResponse("The starter printed with its sample data (renderd's own sample: no render, counted against nothing)", ["application/pdf"]) } },
      },
    )
    .get("/v1/templates", ({ query, principal }) => listTemplates(app.store, workspaceOf(principal), query), {
      auth: read,
      query: TemplateListQuery,
      response: Page(TemplateSummary),
    })
    .get("/v1/templates/:id", async ({ params, principal, set }) => tagged(set, await getTemplate(app.store, workspaceOf(principal), params.id)), {
      auth: read,
      params: IdParams,
      detail: { responses: { 200: withEtag("The template with its draft") } },
    })
    .patch(
      "/v1/templates/:id",
      async ({ params, body, principal, request, set }) => {
        const input = parseBody(UpdateTemplateBody, body);
        const ifMatch = ifMatchTags(request.headers.get("if-match"));
        return tagged(set, await updateTemplate(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), params.id, input, ifMatch));
      },
      {
        auth: write,
        beforeHandle: app.space.assertRoom,
        params: IdParams,
        detail: { requestBody: jsonBody(UpdateTemplateBody), parameters: [IF_MATCH_PARAMETER], responses: { 200: withEtag("The template, updated") } },
      },
    )
    .delete(
      "/v1/templates/:id",
      ({ params, principal, request }) => deleteTemplate(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), params.id),
      { auth: write, params: IdParams, response: TemplateDeleted },
    )
    .post(
      "/v1/templates/:id/publish",
      async ({ params, principal, request, set }) => {
        const version = await publishTemplate(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), params.id);
        set.status = 201;
        return version;
      },
      { auth: publish, beforeHandle: app.space.assertRoom, params: IdParams, detail: { responses: { 201: jsonResponse("The version, published", TemplateVersion) } } },
    )
    .get(
      "/v1/templates/:id/versions",
      ({ params, query, principal }) => listTemplateVersions(app.store, workspaceOf(principal), params.id, query),
      { auth: read, params: IdParams, query: TemplateListQuery, response: Page(TemplateVersionSummary) },
    )
    .get(
      "/v1/templates/:id/versions/:version",
      ({ params, principal }) => getTemplateVersion(app.store, workspaceOf(principal), params.id, Number(params.version)),
      { auth: read, params: VersionParams, detail: { responses: { 200: jsonResponse("The version with its source", TemplateVersion) } } },
    );
}
