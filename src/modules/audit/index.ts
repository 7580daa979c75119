/** audit routes (spec 4.6): the workspace's audit events, newest first, filtered and paged. */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf } from "../../auth/principal";
import { IdParams, Page } from "../../http/schemas";
import { AuditEvent, AuditQuery } from "./model";
import { getAuditEvent, listAuditEvents } from "./service";

/** auditRoutes mounts /v1/audit-events. */
export function auditRoutes(app: AppContext, auth: AuthPlugin) {
  return new Elysia({ normalize: false })
    .use(auth)
    .get("/v1/audit-events", ({ query, principal }) => listAuditEvents(app.store, workspaceOf(principal), query), {
      auth: { scope: "audit:read" },
      query: AuditQuery,
      response: Page(AuditEvent),
    })
    .get("/v1/audit-events/:id", ({ params, principal }) => getAuditEvent(app.store, workspaceOf(principal), params.id), {
      auth: { scope: "audit:read" },
      params: IdParams,
      response: AuditEvent,
    });
}
