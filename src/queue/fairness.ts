/** queue/fairness: the fair pick of spec 8.1 (5) — workers take turns between workspaces, so every workspace's first
 * waiting render runs before any workspace's second. Pure: the queue (store-queue.ts) feeds it the heads with their turns. */

/** Head is a waiting render: `place` 1 is its workspace's oldest, 2 the next… and `turn` the turn in which the workspace
 * was last served (-1: never). */
export interface Head {
  workspaceId: string;
  renderId: string;
  createdAt: string;
  turn: number;
  place?: number;
}

/** fairOrder answers waiting renders in the order to serve them: every workspace's first before any workspace's second
 * (a second is taken only when every first is being claimed by another process); among firsts, the workspace served
 * longest ago first — one never served before any other — and among equal turns the oldest. Nothing is reserved: with
 * one workspace waiting, it gets every pick. */
export function fairOrder(heads: readonly Head[]): Head[] {
  return [...heads].sort((a, b) => (a.place ?? 1) - (b.place ?? 1) || a.turn - b.turn || (older(a, b) ? -1 : older(b, a) ? 1 : 0));
}

function older(a: Head, b: Head): boolean {
  return a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.renderId < b.renderId);
}
