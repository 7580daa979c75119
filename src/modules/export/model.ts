/** export/model: the workspace export document of GET /v1/export (docs/members.md), built from each resource's own schema. */
import { Type, type Static } from "@sinclair/typebox";
import { IsoDateTime } from "../../http/schemas";
import { Asset } from "../assets/model";
import { AuditEvent } from "../audit/model";
import { RenderRecord } from "../renders/model";
import { Template, TemplateVersion } from "../templates/model";
import { UsageDay } from "../usage/model";
import { PlatformWorkspace } from "../workspaces/model";

/** ExportedTemplate is a template with its draft and every published version, newest first. */
export const ExportedTemplate = Type.Composite([Template, Type.Object({ versions: Type.Array(TemplateVersion) })]);

/** WorkspaceExport is the whole document; lists are newest first except `usage`, which runs oldest day first. */
export const WorkspaceExport = Type.Object({
  exportedAt: IsoDateTime,
  workspace: PlatformWorkspace,
  templates: Type.Array(ExportedTemplate),
  renders: Type.Array(RenderRecord),
  assets: Type.Array(Asset),
  auditEvents: Type.Array(AuditEvent),
  usage: Type.Array(UsageDay),
});
export type WorkspaceExport = Static<typeof WorkspaceExport>;
