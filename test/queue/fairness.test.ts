import { describe, expect, test } from "bun:test";
import { fairOrder, type Head } from "../../src/queue/fairness";

const head = (workspaceId: string, renderId: string, createdAt: string): Omit<Head, "turn"> => ({ workspaceId, renderId, createdAt });

const a1 = head("ws_a", "rnd_a1", "2026-01-01T00:00:01.000Z");
const b1 = head("ws_b", "rnd_b1", "2026-01-01T00:00:02.000Z");
const c1 = head("ws_c", "rnd_c1", "2026-01-01T00:00:03.000Z");
const sameTimeLow = head("ws_d", "rnd_0d", "2026-01-01T00:00:01.000Z");

// spec 8.1 (5): workspaces take turns; within a turn, one never served comes first, then the oldest head.
const cases: { name: string; heads: Omit<Head, "turn">[]; served: [string, number][]; want: Omit<Head, "turn"> | undefined }[] = [
  { name: "nothing waits", heads: [], served: [], want: undefined },
  { name: "one workspace gets every pick", heads: [a1], served: [["ws_a", 7]], want: a1 },
  { name: "none served yet: the oldest head", heads: [c1, a1, b1], served: [], want: a1 },
  { name: "a workspace never served goes before one served", heads: [a1, c1], served: [["ws_a", 1]], want: c1 },
  { name: "the workspace served longest ago goes first", heads: [a1, b1, c1], served: [["ws_a", 3], ["ws_b", 1], ["ws_c", 2]], want: b1 },
  { name: "served in the same turn: the oldest head", heads: [c1, b1], served: [["ws_b", 2], ["ws_c", 2]], want: b1 },
  { name: "created at the same time: the smaller render id", heads: [a1, sameTimeLow], served: [], want: sameTimeLow },
  { name: "memory of a workspace that waits no more changes nothing", heads: [b1, c1], served: [["ws_a", 0], ["ws_b", 5]], want: c1 },
];

// The first of the fair order is the next pick; the heads carry the turn their workspace was last served in (-1: never).
function pickNext(heads: Omit<Head, "turn">[], served: Map<string, number>): Omit<Head, "turn"> | undefined {
  const first = fairOrder(heads.map((h) => ({ ...h, turn: served.get(h.workspaceId) ?? -1 })))[0];
  return first && { workspaceId: first.workspaceId, renderId: first.renderId, createdAt: first.createdAt };
}

describe("fairOrder (spec 8.1 (5))", () => {
  for (const c of cases) test(c.name, () => expect(pickNext(c.heads, new Map(c.served))).toEqual(c.want));
});
