/** queue/fairness: the fair pick of spec 8.1 (5) — workers take turns between workspaces, so every workspace's first
 * waiting render runs before any workspace's second. Pure: the queue (sqlite.ts) feeds it the heads and its memory. */

/** Head is a workspace's oldest waiting render. */
export interface Head {
  workspaceId: string;
  renderId: string;
  createdAt: string;
}

/** pickNext answers the head of the workspace served longest ago — one never served first, then the oldest head —
 * or undefined when nothing waits. `lastServed` maps a workspace to the turn it was last served in. Nothing is
 * reserved: with one workspace waiting, it gets every pick. */
export function pickNext(heads: readonly Head[], lastServed: ReadonlyMap<string, number>): Head | undefined {
  let best: Head | undefined;
  let bestTurn = Infinity;
  for (const head of heads) {
    const turn = lastServed.get(head.workspaceId) ?? -1;
    if (!best || turn < bestTurn || (turn === bestTurn && older(head, best))) {
      best = head;
      bestTurn = turn;
    }
  }
  return best;
}

function older(a: Head, b: Head): boolean {
  return a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.renderId < b.renderId);
}
