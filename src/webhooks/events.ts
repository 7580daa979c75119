/** events: the render-end events of spec 6 — the hand-off from rendering, and the delivery body built from them. */
import type { Clock } from "../lib/clock";
import { newId } from "../lib/ids";
import type { Tx } from "../store/store";
import type { FinalStatus } from "../store/render-status";

/** spec 6.1: the event types, one per final render state. */
export const EVENT_TYPES = ["render.succeeded", "render.failed", "render.cancelled"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What rendering says about a PDF render that reached its final state. */
export interface EndEvent {
  workspaceId: string;
  renderId: string;
  status: FinalStatus;
  test: boolean;
  /** Only used when `status` is `failed`: the render's error code (spec 6.3 `data.errorCode`). */
  errorCode?: string;
}

/**
 * enqueueEndEvent records the end event of a PDF render with one pending delivery per endpoint that should get it, and
 * answers the event id; with no such endpoint it writes nothing and answers null — an event is only ever read through
 * its deliveries, and a row per render that nothing reads cost every render an insert and the retention sweep a delete.
 * It must run inside the transaction that moves the render to its final state (STYLE habit 4).
 */
export async function enqueueEndEvent(tx: Tx, clock: Clock, event: EndEvent): Promise<string | null> {
  const type: EventType = `render.${event.status}`;
  // The event time is when the render reached its final state: now, inside that transaction (spec 6.3 createdAt).
  const now = clock.now().toISOString();
  // spec 6.2 (1), (2) and 3.5: subscribed, enabled now, and created no later than the render ended. A disabled endpoint
  // gets no row, so the event is never sent to it later.
  // The subscription is matched here, not in SQL: a workspace has ten endpoints at most, and PostgreSQL has no
  // json_each over the stored text (docs/scale-out.md "Portable SQL"). The writes go out with the transaction's next
  // statement or its COMMIT: no round trip of their own.
  const subscribed = await tx.all<{ id: string; event_types: string }>(
    `SELECT id, event_types FROM webhook_endpoints WHERE workspace_id = $ws AND enabled = 1 AND created_at <= $now ORDER BY created_at, id`,
    { ws: event.workspaceId, now },
  );
  const endpoints = subscribed.filter((endpoint) => (JSON.parse(endpoint.event_types) as EventType[]).includes(type));
  if (endpoints.length === 0) return null;
  const id = newId("evt");
  // spec 6.3: data.errorCode only on render.failed; a failure always has a code, RENDER_FAILED when none was given.
  const errorCode = event.status === "failed" ? event.errorCode ?? "RENDER_FAILED" : null;
  tx.write(
    `INSERT INTO webhook_events (id, workspace_id, type, render_id, status, test, error_code, created_at)
     VALUES ($id, $ws, $type, $renderId, $status, $test, $errorCode, $now)`,
    { id, ws: event.workspaceId, type, renderId: event.renderId, status: event.status, test: event.test ? 1 : 0, errorCode, now },
  );
  // spec 3.1: the first attempt is due at once.
  for (const endpoint of endpoints)
    tx.write(
      `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, status, attempts, next_attempt_at, created_at)
       VALUES ($id, $endpoint, $event, 'pending', 0, $now, $now)`,
      { id: newId("whd"), endpoint: endpoint.id, event: id, now },
    );
  tx.notify("webhook_deliveries");
  return id;
}

/** The stored event, as the delivery body needs it. */
export interface EventRow {
  id: string;
  type: EventType;
  render_id: string;
  status: FinalStatus;
  test: number;
  error_code: string | null;
  created_at: string;
}

/** eventBody gives the spec 6.3 JSON body of an event, byte for byte the same on every attempt and for every endpoint. */
export function eventBody(event: EventRow): string {
  const data: Record<string, unknown> = { renderId: event.render_id, status: event.status, test: event.test === 1 };
  if (event.type === "render.failed" && event.error_code !== null) data.errorCode = event.error_code;
  return JSON.stringify({ id: event.id, type: event.type, createdAt: event.created_at, data });
}
