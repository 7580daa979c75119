/** audit/service: writes audit rows inside the caller's transaction and reads them back newest first. */
import { ApiError } from "../../errors";
import { selectPage } from "../../http/paging";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { inList } from "../../store/sql-list";
import type { Reads, Store, Tx } from "../../store/store";
import type { ChangeContext } from "../../auth/actor";
import type { AuditEvent, AuditQuery, Metadata } from "./model";

export interface AuditEntry {
  workspaceId: string;
  action: string;
  resourceType: string;
  resourceId: string;
  resourceName?: string;
  resourceDeleted?: boolean;
  metadata?: Metadata;
}

/** recordAudit writes one audit event; call it inside the store transaction that makes the change. */
export async function recordAudit(tx: Tx, clock: Clock, ctx: ChangeContext, entry: AuditEntry): Promise<string> {
  const id = newId("aud");
  await tx.run(
    `INSERT INTO audit_events (id, workspace_id, actor_type, actor_id, actor_name, actor_email, action, resource_type,
       resource_id, resource_name, resource_deleted, request_id, metadata, created_at)
     VALUES ($id, $ws, $actorType, $actorId, $actorName, $actorEmail, $action, $resourceType, $resourceId, $resourceName,
       $resourceDeleted, $requestId, $metadata, $createdAt)`,
    {
      id,
      ws: entry.workspaceId,
      actorType: ctx.actor.type,
      actorId: ctx.actor.id,
      actorName: ctx.actor.name ?? null,
      actorEmail: ctx.actor.email ?? null,
      action: entry.action,
      resourceType: entry.resourceType,
      resourceId: entry.resourceId,
      resourceName: entry.resourceName ?? null,
      resourceDeleted: entry.resourceDeleted === undefined ? null : entry.resourceDeleted ? 1 : 0,
      requestId: ctx.requestId,
      metadata: JSON.stringify(entry.metadata ?? {}),
      createdAt: clock.now().toISOString(),
    },
  );
  return id;
}

/** The tables whose rows are audited resources that can be deleted. */
export type DeletableTable = "assets" | "api_keys" | "templates" | "webhook_endpoints" | "certificates" | "destinations";

/** deleteAudited deletes a resource's row, flags its earlier audit events as about a deleted resource and records the
 * deletion (spec 2.7 `resourceDeleted`); call it inside the store transaction of the deletion. */
export async function deleteAudited(tx: Tx, clock: Clock, ctx: ChangeContext, table: DeletableTable, entry: Omit<AuditEntry, "resourceDeleted">): Promise<void> {
  // One round trip on PostgreSQL: the three statements go out together, in this order.
  await Promise.all([
    tx.run(`DELETE FROM ${table} WHERE id = $id`, { id: entry.resourceId }),
    tx.run("UPDATE audit_events SET resource_deleted = 1 WHERE workspace_id = $ws AND resource_type = $t AND resource_id = $id", {
      ws: entry.workspaceId,
      t: entry.resourceType,
      id: entry.resourceId,
    }),
    recordAudit(tx, clock, ctx, { ...entry, resourceDeleted: true }),
  ]);
}

/** deleteResource is a DELETE request's transaction: `read` finds the resource's row (NOT_FOUND when it is not the
 * workspace's), `entry` names it for the audit, and the row is deleted audited (deleteAudited). */
export function deleteResource<R>(
  store: Store,
  clock: Clock,
  ctx: ChangeContext,
  table: DeletableTable,
  read: (tx: Tx) => Promise<R>,
  entry: (row: R) => Omit<AuditEntry, "resourceDeleted">,
): Promise<{ id: string; deleted: true }> {
  return store.tx(async (tx) => {
    const audited = entry(await read(tx));
    await deleteAudited(tx, clock, ctx, table, audited);
    return { id: audited.resourceId, deleted: true as const };
  });
}

export interface AuditRow {
  id: string;
  actor_type: AuditEvent["actorType"];
  actor_id: string;
  actor_name: string | null;
  actor_email: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  resource_name: string | null;
  resource_deleted: number | null;
  request_id: string;
  metadata: string;
  created_at: string;
}

/** toEvent answers a stored audit event as the API shows it. */
export function toEvent(r: AuditRow): AuditEvent {
  const e: AuditEvent = {
    id: r.id,
    actorType: r.actor_type,
    actorId: r.actor_id,
    action: r.action,
    resourceType: r.resource_type,
    resourceId: r.resource_id,
    requestId: r.request_id,
    metadata: JSON.parse(r.metadata),
    createdAt: r.created_at,
  };
  if (r.actor_name) e.actorName = r.actor_name;
  if (r.actor_email) e.actorEmail = r.actor_email;
  if (r.resource_name) e.resourceName = r.resource_name;
  if (r.resource_deleted !== null) e.resourceDeleted = r.resource_deleted === 1;
  return e;
}

/** lastChange answers who made the newest of `actions` on a resource, and when: what a message about a change made
 * elsewhere names (a user by e-mail, an API key by name). */
export async function lastChange(store: Reads, workspaceId: string, resourceType: string, resourceId: string, actions: readonly string[]): Promise<{ by: string; at: string } | null> {
  const named = inList("action", actions, "action");
  const r = await store.get<Pick<AuditRow, "actor_type" | "actor_id" | "actor_name" | "actor_email" | "created_at">>(
    `SELECT actor_type, actor_id, actor_name, actor_email, created_at FROM audit_events
     WHERE workspace_id = $ws AND resource_type = $type AND resource_id = $id AND ${named.sql} ORDER BY created_at DESC, id DESC LIMIT 1`,
    { ws: workspaceId, type: resourceType, id: resourceId, ...named.params },
  );
  if (!r) return null;
  if (r.actor_type === "api_key") return { by: r.actor_name ? `API key "${r.actor_name}" (${r.actor_id})` : `API key ${r.actor_id}`, at: r.created_at };
  const name = r.actor_type === "user" ? (r.actor_email ?? r.actor_name) : r.actor_name;
  return { by: name ?? r.actor_id, at: r.created_at };
}

// Stored times are UTC with milliseconds; a filter with an offset is moved to that form so text comparison holds.
function utc(value: string, path: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new ApiError("BAD_REQUEST", "The query string is not valid.", { details: [{ path, message: "is not a valid date-time" }] });
  return new Date(ms).toISOString();
}

/** listAuditEvents answers one page of a workspace's events, newest first, with the 4.6 filters. */
export async function listAuditEvents(store: Reads, workspaceId: string, query: AuditQuery): Promise<{ items: AuditEvent[]; nextCursor?: string }> {
  const where = ["workspace_id = $ws"];
  const params: Record<string, string> = { ws: workspaceId };
  const eq: Array<[keyof AuditQuery, string]> = [
    ["action", "action"],
    ["actorType", "actor_type"],
    ["actorId", "actor_id"],
    ["resourceType", "resource_type"],
    ["resourceId", "resource_id"],
  ];
  for (const [field, column] of eq) {
    const value = query[field];
    if (value !== undefined) {
      where.push(`${column} = $${field}`);
      params[field] = value;
    }
  }
  if (query.from) {
    where.push("created_at >= $from");
    params.from = utc(query.from, "/from");
  }
  if (query.to) {
    where.push("created_at <= $to");
    params.to = utc(query.to, "/to");
  }
  return selectPage(store, query, { from: "audit_events", where, params }, toEvent);
}

/** getAuditEvent answers one event of the workspace, or 404 (also for another workspace's event). */
export async function getAuditEvent(store: Reads, workspaceId: string, id: string): Promise<AuditEvent> {
  const row = await store.get<AuditRow>("SELECT * FROM audit_events WHERE id = $id AND workspace_id = $ws", { id, ws: workspaceId });
  if (!row) throw new ApiError("NOT_FOUND", `Audit event ${id} was not found.`);
  return toEvent(row);
}
