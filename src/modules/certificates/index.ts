/** certificates routes (issue 13): every operation needs `certificate:manage`; no answer carries the key or the password. */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf } from "../../auth/principal";
import { IdParams, Page } from "../../http/schemas";
import type { RequestMeta } from "../../http/request-meta";
import { Certificate, CertificateDeleted, CertificateListQuery, CreateCertificateBody } from "./model";
import { createCertificate, deleteCertificate, getCertificate, listCertificates } from "./service";

const manage = { scope: "certificate:manage" } as const;

/** certificateRoutes mounts /v1/certificates. */
export function certificateRoutes(app: AppContext, auth: AuthPlugin, meta: RequestMeta) {
  return new Elysia({ normalize: false })
    .use(auth)
    .post(
      "/v1/certificates",
      async ({ body, principal, request, set }) => {
        const created = await createCertificate(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), body, app.config.secretKey);
        set.status = 201;
        return created;
      },
      { auth: manage, beforeHandle: app.space.assertRoom, body: CreateCertificateBody, response: { 201: Certificate } },
    )
    .get("/v1/certificates", ({ query, principal }) => listCertificates(app.store, workspaceOf(principal), query), {
      auth: manage,
      query: CertificateListQuery,
      response: Page(Certificate),
    })
    .get("/v1/certificates/:id", ({ params, principal }) => getCertificate(app.store, workspaceOf(principal), params.id), {
      auth: manage,
      params: IdParams,
      response: Certificate,
    })
    .delete(
      "/v1/certificates/:id",
      ({ params, principal, request }) => deleteCertificate(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), params.id),
      { auth: manage, params: IdParams, response: CertificateDeleted },
    );
}
