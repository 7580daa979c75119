/** reports routes (DESIGN.md 4): POST /v1/reports answers an XLSX workbook directly (or a PDF report), and
 * POST /v1/strings/render answers `{text}`; both need `render:create`. */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf } from "../../auth/principal";
import { fileResponse, jsonResponse } from "../../http/openapi";
import { contentDisposition } from "../assets/download";
import { Render } from "../renders/model";
import { XLSX } from "../assets/model";
import { ReportBody, StringRenderBody, StringRenderResult } from "./model";
import { createReport, renderText, type ReportDeps } from "./service";
import { renderDeps } from "../renders/deps";

const create = { scope: "render:create" } as const;

/** reportRoutes mounts /v1/reports and /v1/strings/render. */
export function reportRoutes(app: AppContext, auth: AuthPlugin) {
  const deps: ReportDeps = { store: app.store, clock: app.clock, files: app.files, renders: renderDeps(app) };
  return new Elysia({ normalize: false })
    .use(auth)
    .post("/v1/strings/render", ({ body, principal }) => renderText(app.store, workspaceOf(principal), body), {
      auth: create,
      body: StringRenderBody,
      response: StringRenderResult,
    })
    .post(
      "/v1/reports",
      async ({ body, principal, set }) => {
        const outcome = await createReport(deps, workspaceOf(principal), body);
        if (outcome.kind === "pdf") {
          set.status = outcome.status;
          return outcome.body;
        }
        return new Response(outcome.bytes, {
          headers: {
            "content-type": XLSX,
            "content-disposition": contentDisposition(outcome.filename),
            "x-content-type-options": "nosniff",
            // The workbook holds the caller's data: no shared cache may keep it.
            "cache-control": "no-store",
          },
        });
      },
      {
        auth: create,
        beforeHandle: app.space.assertRoom,
        body: ReportBody,
        detail: { responses: { 200: fileResponse("The XLSX workbook", [XLSX]), 202: jsonResponse("A PDF report: its render, on its way", Render) } },
      },
    );
}
