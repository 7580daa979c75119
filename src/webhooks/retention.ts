/** retention: delivery records and events are kept as long as renders, RETENTION_DAYS (spec 2.9, 8.4). */
import type { Clock } from "../lib/clock";
import type { Store } from "../store/store";

const DAY_MS = 24 * 60 * 60 * 1000;

/** sweepWebhookHistory deletes finished deliveries and events older than `retentionDays`, and answers how many of each went. */
export function sweepWebhookHistory(store: Store, clock: Clock, retentionDays: number): Promise<{ deliveries: number; events: number }> {
  const cutoff = new Date(clock.now().getTime() - retentionDays * DAY_MS).toISOString();
  return store.tx(async (tx) => {
    // A delivery still pending keeps its event: the schedule (about a day) may outlast a short retention.
    const deliveries = await tx.run("DELETE FROM webhook_deliveries WHERE created_at < $cutoff AND status <> 'pending'", { cutoff });
    const events = await tx.run(
      `DELETE FROM webhook_events WHERE created_at < $cutoff
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)`,
      { cutoff },
    );
    return { deliveries, events };
  });
}
