/** export/service: a workspace's data as one JSON document (WorkspaceExport), produced a page of rows at a time so that
 * memory stays bounded however many renders and audit events the workspace has (docs/members.md). */
import { ApiError } from "../../errors";
import type { Clock } from "../../lib/clock";
import type { Store } from "../../store/store";
import type { ChangeContext } from "../../auth/actor";
import { listAuditEvents, recordAudit } from "../audit/service";
import { listAssets } from "../assets/service";
import { listRenderRecords } from "../renders/service";
import { getTemplate, getTemplateVersion, listTemplates, listTemplateVersions } from "../templates/service";
import { usageReport } from "../usage/service";
import { getWorkspace } from "../workspaces/service";

type Page<T> = { items: T[]; nextCursor?: string };

// Rows read per query: the largest page a list gives out.
const PAGE = "100";

// Every day a usage record can have (usage/service checks ranges only where a caller gives them).
const ALL_DAYS = { from: "0000-01-01", to: "9999-12-31" };

/** rowsOf walks every page of a list, newest first; a row added meanwhile sorts before the cursor and is not seen. */
function* rowsOf<T>(read: (query: { limit: string; cursor?: string }) => Page<T>): Generator<T> {
  let cursor: string | undefined;
  do {
    const page = read(cursor === undefined ? { limit: PAGE } : { limit: PAGE, cursor });
    yield* page.items;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}

function* jsonArray(items: Iterable<unknown>): Generator<string> {
  yield "[";
  let separator = "";
  for (const item of items) {
    yield separator + JSON.stringify(item);
    separator = ",";
  }
  yield "]";
}

// A template deleted while the export runs is left out rather than breaking the document half-way.
function unlessDeleted<T>(read: () => T): T | null {
  try {
    return read();
  } catch (error) {
    if (error instanceof ApiError && error.code === "NOT_FOUND") return null;
    throw error;
  }
}

// One template and its versions at a time: a version holds a whole draft, stylesheet included.
function* templatesJson(store: Store, workspaceId: string): Generator<string> {
  yield "[";
  let separator = "";
  for (const summary of rowsOf((q) => listTemplates(store, workspaceId, q))) {
    const template = unlessDeleted(() => getTemplate(store, workspaceId, summary.id));
    if (!template) continue;
    yield `${separator}${JSON.stringify(template).slice(0, -1)},"versions":`;
    const versions = rowsOf((q) => unlessDeleted(() => listTemplateVersions(store, workspaceId, template.id, q)) ?? { items: [] });
    yield* jsonArray((function* () {
      for (const v of versions) {
        const version = unlessDeleted(() => getTemplateVersion(store, workspaceId, template.id, v.version));
        if (version) yield version;
      }
    })());
    yield "}";
    separator = ",";
  }
  yield "]";
}

function* documentJson(store: Store, workspaceId: string, exportedAt: string, auditEvents: boolean): Generator<string> {
  yield `{"exportedAt":${JSON.stringify(exportedAt)},"workspace":${JSON.stringify(getWorkspace(store, workspaceId))},"templates":`;
  yield* templatesJson(store, workspaceId);
  yield `,"renders":`;
  yield* jsonArray(rowsOf((q) => listRenderRecords(store, workspaceId, q)));
  yield `,"assets":`;
  yield* jsonArray(rowsOf((q) => listAssets(store, workspaceId, q)));
  yield `,"auditEvents":`;
  yield* jsonArray(auditEvents ? rowsOf((q) => listAuditEvents(store, workspaceId, q)) : []);
  yield `,"usage":`;
  yield* jsonArray(usageReport(store, workspaceId, ALL_DAYS).days);
  yield "}";
}

/** What the caller may read beyond the workspace's data: the audit history only with `audit:read`, as
 * `GET /v1/audit-events` asks (a member's role lacks it; docs/members.md). */
export interface ExportReader {
  auditEvents: boolean;
}

/** exportWorkspace audits the export (`workspace.exported`) and answers its file name and the document as pieces of
 * JSON text, read from the store as they are taken. */
export function exportWorkspace(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, reader: ExportReader): { filename: string; chunks: Generator<string> } {
  const exportedAt = clock.now().toISOString();
  const workspace = store.tx(() => {
    const ws = getWorkspace(store, workspaceId);
    recordAudit(store, clock, ctx, { workspaceId: ws.id, action: "workspace.exported", resourceType: "workspace", resourceId: ws.id, resourceName: ws.name });
    return ws;
  });
  return { filename: `renderd-export-${workspace.slug}-${exportedAt.slice(0, 10)}.json`, chunks: documentJson(store, workspace.id, exportedAt, reader.auditEvents) };
}
