/** api-keys/service: creating, listing, rotating, revoking and deleting a workspace's API keys, each audited. */
import { ApiError } from "../../errors";
import { selectPage } from "../../http/paging";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import type { Reads, Store } from "../../store/store";
import { newApiKeySecret } from "../../auth/secrets";
import type { Scope } from "../../auth/scopes";
import type { ChangeContext } from "../../auth/actor";
import { deleteResource, recordAudit } from "../audit/service";
import type { ApiKey, ApiKeyCreated, CreateApiKeyBody } from "./model";

const DAY_MS = 24 * 60 * 60 * 1000;

interface KeyRow {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  start: string;
  scopes: string;
  enabled: number;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

function toApiKey(r: KeyRow): ApiKey {
  const key: ApiKey = {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    start: r.start,
    scopes: JSON.parse(r.scopes) as Scope[],
    enabled: r.enabled === 1,
    createdAt: r.created_at,
  };
  if (r.last_used_at) key.lastUsedAt = r.last_used_at;
  if (r.expires_at) key.expiresAt = r.expires_at;
  return key;
}

async function keyRow(store: Reads, workspaceId: string, id: string): Promise<KeyRow> {
  const r = await store.get<KeyRow>("SELECT * FROM api_keys WHERE id = $id AND workspace_id = $ws", { id, ws: workspaceId });
  if (!r) throw new ApiError("NOT_FOUND", `API key ${id} was not found.`);
  return r;
}

/** createApiKey makes a key and answers it with its secret, shown this once (spec 5.3.5). */
export async function createApiKey(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, input: CreateApiKeyBody): Promise<ApiKeyCreated> {
  const { secret, hash, prefix, start } = newApiKeySecret();
  const now = clock.now();
  const id = newId("key");
  const expiresAt = input.expiresInDays !== undefined ? new Date(now.getTime() + input.expiresInDays * DAY_MS).toISOString() : null;
  return store.tx(async (tx) => {
    await tx.run(
      `INSERT INTO api_keys (id, workspace_id, name, prefix, start, secret_hash, scopes, enabled, created_at, expires_at)
       VALUES ($id, $ws, $name, $prefix, $start, $hash, $scopes, 1, $now, $exp)`,
      { id, ws: workspaceId, name: input.name, prefix, start, hash, scopes: JSON.stringify(input.scopes), now: now.toISOString(), exp: expiresAt },
    );
    await recordAudit(tx, clock, ctx, {
      workspaceId,
      action: "api_key.created",
      resourceType: "api_key",
      resourceId: id,
      resourceName: input.name,
      metadata: { scopes: input.scopes.join(" "), expiresAt },
    });
    return { ...toApiKey(await keyRow(tx, workspaceId, id)), secret };
  });
}

/** listApiKeys answers one page of the workspace's keys, newest first, never with secrets. */
export async function listApiKeys(store: Reads, workspaceId: string, query: { limit?: string; cursor?: string }): Promise<{ items: ApiKey[]; nextCursor?: string }> {
  return selectPage(store, query, { from: "api_keys", where: ["workspace_id = $ws"], params: { ws: workspaceId } }, toApiKey);
}

/** rotateApiKey replaces a key's secret; the old one stops working at once (spec 3.3). */
export async function rotateApiKey(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, id: string): Promise<ApiKeyCreated> {
  const { secret, hash, start } = newApiKeySecret();
  return store.tx(async (tx) => {
    const r = await keyRow(tx, workspaceId, id);
    await tx.run("UPDATE api_keys SET secret_hash = $hash, start = $start WHERE id = $id", { hash, start, id });
    await recordAudit(tx, clock, ctx, { workspaceId, action: "api_key.rotated", resourceType: "api_key", resourceId: id, resourceName: r.name });
    return { ...toApiKey(await keyRow(tx, workspaceId, id)), secret };
  });
}

/** revokeApiKey disables a key for good; revoking a revoked key changes nothing and writes no event. */
export async function revokeApiKey(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, id: string): Promise<{ id: string; revoked: true }> {
  return store.tx(async (tx) => {
    const r = await keyRow(tx, workspaceId, id);
    if (r.enabled === 1) {
      await tx.run("UPDATE api_keys SET enabled = 0 WHERE id = $id", { id });
      await recordAudit(tx, clock, ctx, { workspaceId, action: "api_key.revoked", resourceType: "api_key", resourceId: id, resourceName: r.name });
    }
    return { id, revoked: true as const };
  });
}

/** deleteApiKey removes a key and marks its audit history as about a deleted resource. */
export function deleteApiKey(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, id: string): Promise<{ id: string; deleted: true }> {
  return deleteResource(store, clock, ctx, "api_keys", (tx) => keyRow(tx, workspaceId, id), (r) => ({ workspaceId, action: "api_key.deleted", resourceType: "api_key", resourceId: id, resourceName: r.name }));
}
