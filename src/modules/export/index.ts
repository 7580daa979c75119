/** export route (spec 3.4: members of a suspended workspace "can still sign in, read and export"): GET /v1/export
 * answers the workspace's data as one JSON file (docs/members.md). */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf } from "../../auth/principal";
import type { RequestMeta } from "../../http/request-meta";
import { jsonResponse } from "../../http/openapi";
import { NoQuery } from "../../http/schemas";
import { textStream } from "../../http/text-stream";
import { WorkspaceExport } from "./model";
import { exportWorkspace } from "./service";

/** exportRoutes mounts /v1/export: any member's console session, or an API key with admin:manage. */
export function exportRoutes(app: AppContext, auth: AuthPlugin, meta: RequestMeta) {
  return new Elysia({ normalize: false })
    .use(auth)
    .get(
      "/v1/export",
      async ({ principal, request }) => {
        const requestId = meta.of(request).requestId;
        // The export agrees with GET /v1/audit-events: the audit history only for a caller holding audit:read.
        const reader = { auditEvents: principal.scopes.has("audit:read") };
        const { filename, chunks } = await exportWorkspace(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), reader);
        const body = textStream(chunks, (err) => app.log.error({ err, requestId }, "workspace export failed part-way"));
        return new Response(body, {
          headers: {
            "content-type": "application/json; charset=utf-8",
            "content-disposition": `attachment; filename="${filename}"`,
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
          },
        });
      },
      {
        auth: { keyScope: "admin:manage" },
        query: NoQuery,
        detail: { responses: { 200: jsonResponse("The workspace's data, as a JSON attachment", WorkspaceExport) } },
      },
    );
}
