/** leases: the worker's hold on the renders it prints (queue/queue.ts's leases), kept up to date with the store. */
import type { Queue } from "../queue/queue";
import { LeaseLost, type Running } from "./running";

/** stopCancelledElsewhere stops printing renders another process (`renderd tui`) cancelled in the store. */
export async function stopCancelledElsewhere(queue: Queue, running: ReadonlyMap<string, Running>, cancel: (renderId: string) => void): Promise<void> {
  for (const id of await queue.inStatusAmong([...running.keys()], ["cancelled"])) cancel(id);
}

/** renewLeases extends the leases of the renders printing here and stops printing those this process no longer holds. */
export async function renewLeases(queue: Queue, running: ReadonlyMap<string, Running>, cancel: (renderId: string) => void): Promise<void> {
  // A render cancelled elsewhere is no longer held either: it stops as cancelled, not as lost.
  await stopCancelledElsewhere(queue, running, cancel);
  // Only renders whose claims are committed: on PostgreSQL a renew made while a render's end (and the next claim in it)
  // is being committed reads the claimed row as still queued, and would stop a render it holds as lost — left
  // processing under its lease, nobody printed it until another process took it back (bench/cluster.ts: a render 30 s
  // late).
  const held = [...running].filter(([, r]) => r.started).map(([id]) => id);
  for (const id of await queue.renew(held)) running.get(id)?.controller.abort(new LeaseLost("lease lost"));
}
