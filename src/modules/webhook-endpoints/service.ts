/** webhook-endpoints/service: a workspace's webhook endpoints (spec 4.7) and their delivery records (2.9), each change audited. */
import { ApiError } from "../../errors";
import { selectPage } from "../../http/paging";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import type { Reads, Store } from "../../store/store";
import { checkDestination, type DestinationOptions } from "../../webhooks/destinations";
import type { EventType } from "../../webhooks/events";
import { decryptSecret, encryptSecret } from "../../webhooks/secret-box";
import { newSigningSecret } from "../../webhooks/sign";
import type { Metadata } from "../audit/model";
import type { ChangeContext } from "../../auth/actor";
import { deleteResource, recordAudit } from "../audit/service";
import { lockWorkspace } from "../workspaces/service";
import type {
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from "./model";

/** spec 4.7 (2) and 8.4: endpoints per workspace. */
export const MAX_ENDPOINTS = 10;

/** spec 6.4 (4) and 8.4: how long the secret replaced by a rotation keeps signing. */
export const DUAL_SIGNATURE_MS = 24 * 60 * 60 * 1000;

/** What the endpoint operations need besides the store: SECRET_KEY (secrets at rest) and the 6.7 rules. */
export interface EndpointDeps {
  secretKey: string;
  destinations: DestinationOptions;
}

interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  event_types: string;
  enabled: number;
  secret_encrypted: string;
  created_at: string;
  updated_at: string;
}

function toEndpoint(r: EndpointRow): WebhookEndpoint {
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    eventTypes: JSON.parse(r.event_types) as EventType[],
    enabled: r.enabled === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

async function endpointRow(store: Reads, workspaceId: string, id: string): Promise<EndpointRow> {
  const r = await store.get<EndpointRow>("SELECT * FROM webhook_endpoints WHERE id = $id AND workspace_id = $ws", { id, ws: workspaceId });
  // spec DESIGN.md 2: another workspace's endpoint is 404 too.
  if (!r) throw new ApiError("NOT_FOUND", `Webhook endpoint ${id} was not found.`);
  return r;
}

// The audit log names an endpoint by its origin: a path or query may carry the receiver's own token.
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** assertDestination refuses a URL that spec 6.7 does not allow, with the reason in `details` (spec 4.7 (1), 7.3). */
async function assertDestination(url: string, destinations: DestinationOptions): Promise<void> {
  const check = await checkDestination(url, destinations);
  if (!check.ok) throw new ApiError("BAD_REQUEST", "The URL is not an allowed webhook destination.", { details: [{ path: "/url", message: check.reason }] });
}

async function countEndpoints(store: Reads, workspaceId: string): Promise<number> {
  return (await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE workspace_id = $ws", { ws: workspaceId }))!.n;
}

function tooMany(): ApiError {
  return new ApiError("CONFLICT", `A workspace can have at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`);
}

/** createWebhookEndpoint checks the URL, makes the endpoint and answers it with its signing secret, shown this once. */
export async function createWebhookEndpoint(
  store: Store,
  clock: Clock,
  ctx: ChangeContext,
  workspaceId: string,
  input: CreateWebhookEndpointBody,
  deps: EndpointDeps,
): Promise<WebhookEndpointWithSecret> {
  // The cap is checked first so an eleventh endpoint is a 409 whatever its URL; the transaction checks it again.
  if (await countEndpoints(store, workspaceId) >= MAX_ENDPOINTS) throw tooMany();
  await assertDestination(input.url, deps.destinations);
  const id = newId("whe");
  const secret = newSigningSecret();
  const sealed = encryptSecret(deps.secretKey, id, secret);
  return store.tx(async (tx) => {
    // The workspace's row, locked: creations of one workspace take turns, so two cannot both take the last place.
    await lockWorkspace(tx, workspaceId);
    if ((await countEndpoints(tx, workspaceId)) >= MAX_ENDPOINTS) throw tooMany();
    const now = clock.now().toISOString();
    const enabled = input.enabled ?? true;
    await tx.run(
      `INSERT INTO webhook_endpoints (id, workspace_id, url, description, event_types, enabled, secret_encrypted, created_at, updated_at)
       VALUES ($id, $ws, $url, $description, $eventTypes, $enabled, $sealed, $now, $now)`,
      {
        id,
        ws: workspaceId,
        url: input.url,
        description: input.description ?? null,
        eventTypes: JSON.stringify(input.eventTypes),
        enabled: enabled ? 1 : 0,
        sealed,
        now,
      },
    );
    await recordAudit(tx, clock, ctx, {
      workspaceId,
      action: "webhook_endpoint.created",
      resourceType: "webhook_endpoint",
      resourceId: id,
      resourceName: originOf(input.url),
      metadata: { eventTypes: input.eventTypes.join(" "), enabled },
    });
    return { ...toEndpoint(await endpointRow(tx, workspaceId, id)), secret };
  });
}

/** listWebhookEndpoints answers one page of the workspace's endpoints, newest first, without secrets. */
export async function listWebhookEndpoints(store: Reads, workspaceId: string, query: { limit?: string; cursor?: string }): Promise<{ items: WebhookEndpoint[]; nextCursor?: string }> {
  return selectPage(store, query, { from: "webhook_endpoints", where: ["workspace_id = $ws"], params: { ws: workspaceId } }, toEndpoint);
}

/** getWebhookEndpoint answers one endpoint of the workspace, without its secret. */
export async function getWebhookEndpoint(store: Reads, workspaceId: string, id: string): Promise<WebhookEndpoint> {
  return toEndpoint(await endpointRow(store, workspaceId, id));
}

/** updateWebhookEndpoint changes only the fields sent; a new URL is checked first (spec 4.7 (1)); no change writes no event. */
export async function updateWebhookEndpoint(
  store: Store,
  clock: Clock,
  ctx: ChangeContext,
  workspaceId: string,
  id: string,
  input: UpdateWebhookEndpointBody,
  deps: EndpointDeps,
): Promise<WebhookEndpoint> {
  const before = await endpointRow(store, workspaceId, id);
  if (input.url !== undefined && input.url !== before.url) await assertDestination(input.url, deps.destinations);
  return store.tx(async (tx) => {
    const r = await endpointRow(tx, workspaceId, id);
    const sets: string[] = [];
    const params: Record<string, string | number | null> = { id };
    const metadata: Metadata = {};
    if (input.url !== undefined && input.url !== r.url) {
      // Checked above against the URL read then; a concurrent change to another URL is checked by its own request.
      sets.push("url = $url");
      params.url = input.url;
      metadata.url = originOf(input.url);
    }
    if (input.description !== undefined && input.description !== r.description) {
      sets.push("description = $description");
      params.description = input.description;
      metadata.description = input.description === null ? "removed" : "changed";
    }
    if (input.eventTypes !== undefined && JSON.stringify(input.eventTypes) !== r.event_types) {
      sets.push("event_types = $eventTypes");
      params.eventTypes = JSON.stringify(input.eventTypes);
      metadata.eventTypes = input.eventTypes.join(" ");
    }
    if (input.enabled !== undefined && (input.enabled ? 1 : 0) !== r.enabled) {
      sets.push("enabled = $enabled");
      params.enabled = input.enabled ? 1 : 0;
      metadata.enabled = input.enabled;
    }
    if (sets.length === 0) return toEndpoint(r);
    params.now = clock.now().toISOString();
    await tx.run(`UPDATE webhook_endpoints SET ${sets.join(", ")}, updated_at = $now WHERE id = $id`, params);
    await recordAudit(tx, clock, ctx, {
      workspaceId,
      action: "webhook_endpoint.updated",
      resourceType: "webhook_endpoint",
      resourceId: id,
      resourceName: originOf(input.url ?? r.url),
      metadata,
    });
    return toEndpoint(await endpointRow(tx, workspaceId, id));
  });
}

/** deleteWebhookEndpoint removes the endpoint; its deliveries, pending or not, go with it (spec 3.1, foreign key cascade). */
export function deleteWebhookEndpoint(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, id: string): Promise<{ id: string; deleted: true }> {
  return deleteResource(store, clock, ctx, "webhook_endpoints", (tx) => endpointRow(tx, workspaceId, id), (r) => ({
    workspaceId,
    action: "webhook_endpoint.deleted",
    resourceType: "webhook_endpoint",
    resourceId: id,
    resourceName: originOf(r.url),
  }));
}

/**
 * rotateWebhookSecret issues a new signing secret and answers it once; the replaced secret is never answered again but
 * keeps signing for 24 hours (spec 6.4 (4)). A secret that no longer decrypts (SECRET_KEY changed) is simply dropped.
 */
export async function rotateWebhookSecret(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, id: string, deps: Pick<EndpointDeps, "secretKey">): Promise<WebhookEndpointWithSecret> {
  const secret = newSigningSecret();
  const sealed = encryptSecret(deps.secretKey, id, secret);
  return store.tx(async (tx) => {
    const r = await endpointRow(tx, workspaceId, id);
    const now = clock.now();
    const oldReadable = decryptSecret(deps.secretKey, id, r.secret_encrypted) !== null;
    await tx.run(
      `UPDATE webhook_endpoints SET secret_encrypted = $sealed, previous_secret_encrypted = $previous,
         previous_secret_expires_at = $expires, updated_at = $now WHERE id = $id`,
      {
        id,
        sealed,
        previous: oldReadable ? r.secret_encrypted : null,
        expires: oldReadable ? new Date(now.getTime() + DUAL_SIGNATURE_MS).toISOString() : null,
        now: now.toISOString(),
      },
    );
    await recordAudit(tx, clock, ctx, {
      workspaceId,
      action: "webhook_endpoint.secret_rotated",
      resourceType: "webhook_endpoint",
      resourceId: id,
      resourceName: originOf(r.url),
      metadata: { previousSecretSignsUntil: oldReadable ? new Date(now.getTime() + DUAL_SIGNATURE_MS).toISOString() : null },
    });
    return { ...toEndpoint(await endpointRow(tx, workspaceId, id)), secret };
  });
}

interface DeliveryRow {
  id: string;
  event_id: string;
  type: EventType;
  render_id: string;
  status: WebhookDelivery["status"];
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

function toDelivery(r: DeliveryRow): WebhookDelivery {
  const d: WebhookDelivery = {
    id: r.id,
    eventId: r.event_id,
    eventType: r.type,
    renderId: r.render_id,
    status: r.status,
    attempts: r.attempts,
    createdAt: r.created_at,
  };
  if (r.last_status_code !== null) d.lastStatusCode = r.last_status_code;
  if (r.last_error !== null) d.lastError = r.last_error;
  if (r.last_attempt_at !== null) d.lastAttemptAt = r.last_attempt_at;
  // spec 2.9: nextAttemptAt only while pending.
  if (r.status === "pending" && r.next_attempt_at !== null) d.nextAttemptAt = r.next_attempt_at;
  return d;
}

/** listWebhookDeliveries answers one page of an endpoint's delivery records (spec 2.9), newest first. */
export async function listWebhookDeliveries(store: Reads, workspaceId: string, id: string, query: { limit?: string; cursor?: string }): Promise<{ items: WebhookDelivery[]; nextCursor?: string; }> {
  await endpointRow(store, workspaceId, id);
  return selectPage(
    store,
    query,
    {
      select: `d.id, d.event_id, e.type, e.render_id, d.status, d.attempts, d.last_status_code, d.last_error, d.last_attempt_at,
       d.next_attempt_at, d.created_at`,
      from: "webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id",
      where: ["d.endpoint_id = $endpoint"],
      params: { endpoint: id },
      alias: "d",
    },
    toDelivery,
  );
}
