/** export/service: a workspace's data as one JSON document (WorkspaceExport), produced a page of rows at a time so that
 * memory stays bounded however many renders and audit events the workspace has (docs/members.md). */
import { ApiError } from "../../errors";
import type { Clock } from "../../lib/clock";
import type { Reads, Store } from "../../store/store";
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
async function* rowsOf<T>(read: (query: { limit: string; cursor?: string }) => Promise<Page<T>>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const page = await read(cursor === undefined ? { limit: PAGE } : { limit: PAGE, cursor });
    yield* page.items;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}

async function* jsonArray(items: AsyncIterable<unknown> | Iterable<unknown>): AsyncGenerator<string> {
  yield "[";
  let separator = "";
  for await (const item of items) {
    yield separator + JSON.stringify(item);
    separator = ",";
  }
  yield "]";
}

// A template deleted while the export runs is left out rather than breaking the document half-way.
async function unlessDeleted<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ApiError && error.code === "NOT_FOUND") return null;
    throw error;
  }
}

// One template and its versions at a time: a version holds a whole draft, stylesheet included.
async function* templatesJson(store: Reads, workspaceId: string): AsyncGenerator<string> {
  yield "[";
  let separator = "";
  for await (const summary of rowsOf((q) => listTemplates(store, workspaceId, q))) {
    const template = (await unlessDeleted(() => getTemplate(store, workspaceId, summary.id)))?.template;
    if (!template) continue;
    yield `${separator}${JSON.stringify(template).slice(0, -1)},"versions":`;
    const versions = rowsOf(async (q) => (await unlessDeleted(() => listTemplateVersions(store, workspaceId, template.id, q))) ?? { items: [] });
    yield* jsonArray(
      (async function* () {
        for await (const v of versions) {
          const version = await unlessDeleted(() => getTemplateVersion(store, workspaceId, template.id, v.version));
          if (version) yield version;
        }
      })(),
    );
    yield "}";
    separator = ",";
  }
  yield "]";
}

async function* documentJson(store: Reads, workspaceId: string, exportedAt: string, auditEvents: boolean): AsyncGenerator<string> {
  yield `{"exportedAt":${JSON.stringify(exportedAt)},"workspace":${JSON.stringify(await getWorkspace(store, workspaceId))},"templates":`;
  yield* templatesJson(store, workspaceId);
  yield `,"renders":`;
  yield* jsonArray(rowsOf((q) => listRenderRecords(store, workspaceId, q)));
  yield `,"assets":`;
  yield* jsonArray(rowsOf((q) => listAssets(store, workspaceId, q)));
  yield `,"auditEvents":`;
  yield* jsonArray(auditEvents ? rowsOf((q) => listAuditEvents(store, workspaceId, q)) : []);
  yield `,"usage":`;
  yield* jsonArray((async function* () {
    yield* (await usageReport(store, workspaceId, ALL_DAYS)).days;
  })());
  yield "}";
}

/** What the caller may read beyond the workspace's data: the audit history only with `audit:read`, as
 * `GET /v1/audit-events` asks (a member's role lacks it; docs/members.md). */
export interface ExportReader {
  auditEvents: boolean;
}

/** exportWorkspace audits the export (`workspace.exported`) and answers its file name and the document as pieces of
 * JSON text, read from the store as they are taken. */
export async function exportWorkspace(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, reader: ExportReader): Promise<{ filename: string; chunks: AsyncGenerator<string> }> {
  const exportedAt = clock.now().toISOString();
  const workspace = await store.tx(async (tx) => {
    const ws = await getWorkspace(tx, workspaceId);
    await recordAudit(tx, clock, ctx, { workspaceId: ws.id, action: "workspace.exported", resourceType: "workspace", resourceId: ws.id, resourceName: ws.name });
    return ws;
  });
  return { filename: `renderd-export-${workspace.slug}-${exportedAt.slice(0, 10)}.json`, chunks: documentJson(store, workspace.id, exportedAt, reader.auditEvents) };
}
