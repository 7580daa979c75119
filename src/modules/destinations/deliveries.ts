/** destinations/deliveries: a render's deliveries — planned when it is accepted, shown on the render, listed per destination. */
import { ApiError, type ErrorDetail } from "../../errors";
import { selectPage } from "../../http/paging";
import type { Reads, Tx } from "../../store/store";
import { addDeliveries } from "../../destinations/deliveries";
import { fillFilename, fillPlaceholders, type PlaceholderValues } from "../../destinations/placeholders";
import type { DestinationDelivery, RenderDelivery } from "./model";
import { destinationRow } from "./service";

/** A destination a render was checked to deliver to, with the e-mail subject to fill in once the render has its id. */
export interface DeliveryTarget {
  destinationId: string;
  subject: string | null;
}

/** deliveryTargets checks a render's destinationIds, its own or its template's default (BAD_REQUEST pointing at `path/<i>`
 * for one not in the workspace). */
export async function deliveryTargets(store: Reads, workspaceId: string, ids: readonly string[], path: string, from: "request" | "template"): Promise<DeliveryTarget[]> {
  const problems: ErrorDetail[] = [];
  const targets: DeliveryTarget[] = [];
  const rows = await Promise.all(
    ids.map((id) => store.get<{ config: string }>("SELECT config FROM destinations WHERE id = $id AND workspace_id = $ws", { id, ws: workspaceId })),
  );
  ids.forEach((id, i) => {
    const r = rows[i];
    if (!r) problems.push({ path: `${path}/${i}`, message: `no destination ${id} in this workspace${from === "template" ? " (the template's default destinationIds)" : ""}; list them with GET /v1/destinations` });
    else targets.push({ destinationId: id, subject: (JSON.parse(r.config) as { subject?: string }).subject ?? null });
  });
  if (problems.length) throw new ApiError("BAD_REQUEST", "The render names destinations that do not exist; see details.", { details: problems });
  return targets;
}

/** queueDeliveries writes a render's deliveries with their file name and subject filled in, in the render's own transaction. */
export async function queueDeliveries(tx: Tx, now: string, targets: DeliveryTarget[], filename: string, values: PlaceholderValues): Promise<void> {
  await addDeliveries(
    tx,
    now,
    values.renderId,
    targets.map((t) => ({ destinationId: t.destinationId, filename: fillFilename(filename, values), subject: t.subject === null ? null : fillPlaceholders(t.subject, values) })),
  );
}

interface DeliveryRow {
  id: string;
  destination_id: string;
  render_id: string;
  status: RenderDelivery["status"];
  attempts: number;
  last_error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  location: string | null;
  created_at: string;
}

function toRenderDelivery(r: DeliveryRow): RenderDelivery {
  const d: RenderDelivery = { destinationId: r.destination_id, status: r.status, attempts: r.attempts };
  if (r.last_error !== null) d.lastError = r.last_error;
  if (r.delivered_at !== null) d.deliveredAt = r.delivered_at;
  if (r.location !== null) d.location = r.location;
  return d;
}

/** renderDeliveries answers a render's deliveries in the order of its destinationIds (none: an empty list). */
export async function renderDeliveries(store: Reads, renderId: string): Promise<RenderDelivery[]> {
  return (await store.all<DeliveryRow>("SELECT * FROM destination_deliveries WHERE render_id = $id ORDER BY position", { id: renderId })).map(toRenderDelivery);
}

/** listDestinationDeliveries answers one page of a destination's deliveries, newest first. */
export async function listDestinationDeliveries(store: Reads, workspaceId: string, id: string, query: { limit?: string; cursor?: string }): Promise<{ items: DestinationDelivery[]; nextCursor?: string; }> {
  await destinationRow(store, workspaceId, id);
  return selectPage<DeliveryRow, DestinationDelivery>(store, query, { from: "destination_deliveries", where: ["destination_id = $id"], params: { id } }, (r) => {
    const d: DestinationDelivery = { id: r.id, renderId: r.render_id, ...toRenderDelivery(r), createdAt: r.created_at };
    if (r.last_attempt_at !== null) d.lastAttemptAt = r.last_attempt_at;
    if (r.status === "pending" && r.next_attempt_at !== null) d.nextAttemptAt = r.next_attempt_at;
    return d;
  });
}
