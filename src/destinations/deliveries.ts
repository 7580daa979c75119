/** destinations/deliveries: a render's delivery rows — written when it is accepted, made due or failed unsent in the
 * transaction that ends it (queue/lifecycle.ts), so none is lost across a restart. */
import { newId } from "../lib/ids";
import type { Store } from "../store/store";

/** The lastError of a delivery whose render ended without a file. */
export const RENDER_DID_NOT_SUCCEED = "The render did not succeed; nothing was delivered.";

// In-process listeners (the dispatcher), told that deliveries became due so they go out without waiting for a poll.
const listeners = new WeakMap<Store, Set<() => void>>();

/** onDeliveriesDue registers `fn` to hear of deliveries made due on `store` and answers the unsubscribe; `fn` runs inside the
 * writing transaction, so it must only schedule work. */
export function onDeliveriesDue(store: Store, fn: () => void): () => void {
  let set = listeners.get(store);
  if (!set) listeners.set(store, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

/** A delivery to add: where, and the file name and subject with their placeholders already filled in. */
export interface PlannedDelivery {
  destinationId: string;
  filename: string;
  subject: string | null;
}

/** addDeliveries writes one pending, not yet due delivery per destination of a render being accepted (its transaction). */
export function addDeliveries(store: Store, now: string, renderId: string, deliveries: PlannedDelivery[]): void {
  deliveries.forEach((d, position) =>
    store.run(
      `INSERT INTO destination_deliveries (id, destination_id, render_id, position, filename, subject, status, created_at)
       VALUES ($id, $destination, $render, $position, $filename, $subject, 'pending', $now)`,
      { id: newId("dld"), destination: d.destinationId, render: renderId, position, filename: d.filename, subject: d.subject, now },
    ),
  );
}

/** settleDeliveries runs in the transaction of a render's final state: a succeeded render's deliveries become due now,
 * any other's fail unsent. A delivery never changes the render's own status. */
export function settleDeliveries(store: Store, renderId: string, succeeded: boolean, now: string): void {
  if (succeeded) {
    const due = store.run("UPDATE destination_deliveries SET next_attempt_at = $now WHERE render_id = $id AND status = 'pending' AND next_attempt_at IS NULL", { id: renderId, now });
    if (due > 0) for (const fn of listeners.get(store) ?? []) fn();
  } else {
    store.run("UPDATE destination_deliveries SET status = 'failed', last_error = $error WHERE render_id = $id AND status = 'pending'", { id: renderId, error: RENDER_DID_NOT_SUCCEED });
  }
}
