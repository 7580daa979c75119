/** destinations/deliveries: a render's delivery rows — written when it is accepted, made due or failed unsent in the
 * transaction that ends it (queue/lifecycle.ts), so none is lost across a restart. */
import { newId } from "../lib/ids";
import type { Tx } from "../store/store";

/** The lastError of a delivery whose render ended without a file. */
export const RENDER_DID_NOT_SUCCEED = "The render did not succeed; nothing was delivered.";

/** A delivery to add: where, and the file name and subject with their placeholders already filled in. */
export interface PlannedDelivery {
  destinationId: string;
  filename: string;
  subject: string | null;
}

/** addDeliveries writes one pending, not yet due delivery per destination of a render being accepted (its transaction). */
export async function addDeliveries(tx: Tx, now: string, renderId: string, deliveries: PlannedDelivery[]): Promise<void> {
  await Promise.all(
    deliveries.map((d, position) =>
      tx.run(
      `INSERT INTO destination_deliveries (id, destination_id, render_id, position, filename, subject, status, created_at)
       VALUES ($id, $destination, $render, $position, $filename, $subject, 'pending', $now)`,
        { id: newId("dld"), destination: d.destinationId, render: renderId, position, filename: d.filename, subject: d.subject, now },
      ),
    ),
  );
}

/** settleDeliveries runs in the transaction of a render's final state: a succeeded render's deliveries become due now,
 * any other's fail unsent. A delivery never changes the render's own status. */
export async function settleDeliveries(tx: Tx, renderId: string, succeeded: boolean, now: string): Promise<void> {
  if (succeeded) {
    const due = await tx.run("UPDATE destination_deliveries SET next_attempt_at = $now WHERE render_id = $id AND status = 'pending' AND next_attempt_at IS NULL", { id: renderId, now });
    if (due > 0) tx.notify("destination_deliveries");
  } else {
    await tx.run("UPDATE destination_deliveries SET status = 'failed', last_error = $error WHERE render_id = $id AND status = 'pending'", { id: renderId, error: RENDER_DID_NOT_SUCCEED });
  }
}
