/** destinations/service: a workspace's destinations (issue 14): credentials sealed under SECRET_KEY and answered masked,
 * hosts checked as webhook URLs are (spec 6.7), each change audited in its transaction. */
import { ApiError } from "../../errors";
import { selectPage } from "../../http/paging";
import type { ChangeContext } from "../../auth/actor";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import type { Reads, Store } from "../../store/store";
import type { DestinationOptions } from "../../webhooks/destinations";
import { encryptSecret } from "../../webhooks/secret-box";
import { DELIVERY_ERROR, openConfig } from "../../destinations/dispatcher";
import { checkHost } from "../../destinations/hosts";
import { configProblems, keepMasked, maskConfig, splitSecrets, type DestinationConfig, type DestinationType } from "../../destinations/settings";
import { deliver } from "../../destinations/transports";
import type { Metadata } from "../audit/model";
import { deleteResource, recordAudit } from "../audit/service";
import { lockWorkspace } from "../workspaces/service";
import type { CreateDestinationBody, Destination, DestinationTestResult, UpdateDestinationBody } from "./model";

/** Destinations per workspace. */
export const MAX_DESTINATIONS = 50;

/** What the destination operations need besides the store: SECRET_KEY and the 6.7 rules as destinations apply them. */
export interface DestinationDeps {
  secretKey: string;
  hosts: DestinationOptions;
  /** How long a test delivery may take. */
  timeoutMs: number;
}

/** A stored destination. */
export interface DestinationRow {
  id: string;
  workspace_id: string;
  name: string;
  type: DestinationType;
  config: string;
  secrets_encrypted: string;
  created_at: string;
  updated_at: string;
}

type Fields = Record<string, unknown>;

function toDestination(r: DestinationRow, secretKey: string): Destination {
  // The masked config shows which credentials are set; they are read only to know their names (header names included).
  const opened = openConfig(secretKey, r);
  const plain = JSON.parse(r.config) as Fields;
  const { secrets } = splitSecrets(r.type, (opened?.config ?? {}) as Fields);
  return { id: r.id, name: r.name, type: r.type, config: maskConfig(plain, secrets), createdAt: r.created_at, updatedAt: r.updated_at };
}

/** destinationRow answers a destination of the workspace; another workspace's is 404 too (DESIGN.md 2). */
export async function destinationRow(store: Reads, workspaceId: string, id: string): Promise<DestinationRow> {
  const r = await store.get<DestinationRow>("SELECT * FROM destinations WHERE id = $id AND workspace_id = $ws", { id, ws: workspaceId });
  if (!r) throw new ApiError("NOT_FOUND", `Destination ${id} was not found.`);
  return r;
}

/** checkedConfig checks a config against its type and its host against spec 6.7; BAD_REQUEST names the field. */
async function checkedConfig(type: DestinationType, config: Fields, hosts: DestinationOptions): Promise<DestinationConfig> {
  const problems = configProblems(type, config);
  const first = problems[0];
  if (first) throw new ApiError("BAD_REQUEST", `The ${type} destination's config is not valid: ${first.path?.slice(1)} ${first.message}.`, { details: problems });
  const destination = { type, config } as DestinationConfig;
  const check = await checkHost(destination, hosts);
  if (!check.ok) throw new ApiError("BAD_REQUEST", "The destination's host is not allowed.", { details: [{ path: check.path, message: check.reason }] });
  return destination;
}

function seal(secretKey: string, id: string, type: DestinationType, config: Fields): { plain: string; sealed: string } {
  const { plain, secrets } = splitSecrets(type, config);
  return { plain: JSON.stringify(plain), sealed: encryptSecret(secretKey, id, JSON.stringify(secrets)) };
}

function withoutNulls(fields: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null));
}

async function countDestinations(store: Reads, workspaceId: string): Promise<number> {
  return (await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM destinations WHERE workspace_id = $ws", { ws: workspaceId }))!.n;
}

function tooMany(): ApiError {
  return new ApiError("CONFLICT", `A workspace can have at most ${MAX_DESTINATIONS} destinations; delete one first.`);
}

/** createDestination checks the config and its host, seals the credentials and answers the destination, masked. */
export async function createDestination(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, input: CreateDestinationBody, deps: DestinationDeps): Promise<Destination> {
  await checkedConfig(input.type, input.config, deps.hosts);
  const id = newId("dst");
  const { plain, sealed } = seal(deps.secretKey, id, input.type, input.config);
  return store.tx(async (tx) => {
    // The workspace's row, locked: creations of one workspace take turns, so two cannot both take the last place.
    await lockWorkspace(tx, workspaceId);
    if ((await countDestinations(tx, workspaceId)) >= MAX_DESTINATIONS) throw tooMany();
    const now = clock.now().toISOString();
    await tx.run(
      `INSERT INTO destinations (id, workspace_id, name, type, config, secrets_encrypted, created_at, updated_at)
       VALUES ($id, $ws, $name, $type, $plain, $sealed, $now, $now)`,
      { id, ws: workspaceId, name: input.name, type: input.type, plain, sealed, now },
    );
    await recordAudit(tx, clock, ctx, { workspaceId, action: "destination.created", resourceType: "destination", resourceId: id, resourceName: input.name, metadata: { type: input.type } });
    return toDestination(await destinationRow(tx, workspaceId, id), deps.secretKey);
  });
}

/** listDestinations answers one page of the workspace's destinations, newest first, masked. */
export async function listDestinations(store: Reads, workspaceId: string, query: { limit?: string; cursor?: string }, secretKey: string): Promise<{ items: Destination[]; nextCursor?: string }> {
  return selectPage<DestinationRow, Destination>(store, query, { from: "destinations", where: ["workspace_id = $ws"], params: { ws: workspaceId } }, (r) => toDestination(r, secretKey));
}

/** getDestination answers one destination of the workspace, masked. */
export async function getDestination(store: Reads, workspaceId: string, id: string, secretKey: string): Promise<Destination> {
  return toDestination(await destinationRow(store, workspaceId, id), secretKey);
}

/** updateDestination renames it and lays the config fields sent over the stored ones (credentials kept unless replaced);
 * the result is checked whole, host included. No change writes no event. */
export async function updateDestination(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, id: string, input: UpdateDestinationBody, deps: DestinationDeps): Promise<Destination> {
  const before = await destinationRow(store, workspaceId, id);
  // Credentials that no longer decrypt (SECRET_KEY changed) are left out: the PATCH must give them again, or the check refuses it.
  const stored = (openConfig(deps.secretKey, before)?.config ?? JSON.parse(before.config)) as Fields;
  // A field sent as null is removed (an optional one such as `prefix`).
  const config = input.config === undefined ? null : withoutNulls(keepMasked(stored, { ...stored, ...input.config }));
  if (config) await checkedConfig(before.type, config, deps.hosts);
  return store.tx(async (tx) => {
    const r = await destinationRow(tx, workspaceId, id);
    const sets: string[] = [];
    const params: Record<string, string> = { id };
    const metadata: Metadata = {};
    if (input.name !== undefined && input.name !== r.name) {
      sets.push("name = $name");
      params.name = input.name;
      metadata.name = input.name;
    }
    if (config && JSON.stringify(config) !== JSON.stringify(stored)) {
      const { plain, sealed } = seal(deps.secretKey, id, r.type, config);
      sets.push("config = $plain", "secrets_encrypted = $sealed");
      Object.assign(params, { plain, sealed });
      // Which fields changed, never their values: some are credentials.
      metadata.config = Object.keys(input.config!).sort().join(" ");
    }
    if (sets.length === 0) return toDestination(r, deps.secretKey);
    params.now = clock.now().toISOString();
    await tx.run(`UPDATE destinations SET ${sets.join(", ")}, updated_at = $now WHERE id = $id`, params);
    await recordAudit(tx, clock, ctx, { workspaceId, action: "destination.updated", resourceType: "destination", resourceId: id, resourceName: input.name ?? r.name, metadata });
    return toDestination(await destinationRow(tx, workspaceId, id), deps.secretKey);
  });
}

/** deleteDestination removes the destination; its deliveries, pending or not, go with it (foreign key cascade). */
export function deleteDestination(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, id: string): Promise<{ id: string; deleted: true }> {
  return deleteResource(store, clock, ctx, "destinations", (tx) => destinationRow(tx, workspaceId, id), (r) => ({ workspaceId, action: "destination.deleted", resourceType: "destination", resourceId: id, resourceName: r.name }));
}

/** testDestination delivers a small text file now and answers what happened; nothing is stored. */
export async function testDestination(store: Reads, clock: Clock, workspaceId: string, id: string, deps: DestinationDeps): Promise<DestinationTestResult> {
  const r = await destinationRow(store, workspaceId, id);
  const destination = openConfig(deps.secretKey, r);
  if (!destination) return { ok: false, error: DELIVERY_ERROR.secrets };
  const at = clock.now().toISOString();
  const file = {
    bytes: new TextEncoder().encode(`renderd destination test for ${r.name} (${r.id}) at ${at}\n`),
    filename: `renderd-test-${at.replace(/[:.]/g, "-")}.txt`,
    mediaType: "text/plain",
    subject: `renderd destination test: ${r.name}`,
  };
  try {
    return { ok: true, location: await deliver(destination, file, deps.hosts, deps.timeoutMs) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}
