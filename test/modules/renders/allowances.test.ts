/** renders/allowances on a real store: readUse counts what the last minute holds without reading older renders, and
 * chargeAllowances counts them one by one only when their bound (src/ledger/render-minutes.ts) could refuse. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_ACTOR } from "../../../src/auth/actor";
import { ManualClock } from "../../../src/lib/clock";
import { ApiError } from "../../../src/errors";
import { countRenders } from "../../../src/ledger/render-minutes";
import { chargeAllowances, LAST_MINUTE_SQL, readUse } from "../../../src/modules/renders/allowances";
import { createWorkspace } from "../../../src/modules/workspaces/service";
import { migrate } from "../../../src/store/migrate";
import { openStore } from "../../../src/store/open";
import type { Tx } from "../../../src/store/store";
import { rejection } from "../../wait";
import { watchTx } from "../../store/watch-tx";

describe("readUse", () => {
  const dir = mkdtempSync(join(tmpdir(), "renderd-allowances-"));
  const store = openStore(dir);
  const clock = new ManualClock("2026-03-10T10:00:00.000Z");
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("counts the last minute's renders, real and test apart, however many older renders the workspace keeps", async () => {
    await migrate(store, clock);
    const ws = (await store.tx((tx) => createWorkspace(tx, clock, { actor: CLI_ACTOR, requestId: "req_test" }, { name: "Counted" }))).id;
    const other = (await store.tx((tx) => createWorkspace(tx, clock, { actor: CLI_ACTOR, requestId: "req_test" }, { name: "Other" }))).id;
    const now = clock.now().getTime();
    const insert = (tx: Tx, workspaceId: string, i: number, test: number, ageMs: number) =>
      tx.run(
        `INSERT INTO renders (id, workspace_id, status, test, source, filename, metadata, created_at)
         VALUES ($id, $ws, 'succeeded', $test, 'html', 'a.pdf', '{}', $at)`,
        { id: `rnd_${workspaceId}_${i}`, ws: workspaceId, test, at: new Date(now - ageMs).toISOString() },
      );
    await store.tx(async (tx) => {
      for (let i = 0; i < 5000; i++) await insert(tx, ws, i, i % 3 === 0 ? 1 : 0, 60_000 + i * 10);
      await insert(tx, ws, 5000, 0, 59_000);
      await insert(tx, ws, 5001, 0, 30_000);
      await insert(tx, ws, 5002, 1, 10_000);
      await insert(tx, other, 5003, 0, 1_000);
    });
    const use = await readUse(store, clock, ws);
    expect({ real: use.realLastMinute, test: use.testLastMinute, realFreesIn: use.realWindowFreesIn, testFreesIn: use.testWindowFreesIn }).toEqual({
      real: 2,
      test: 1,
      realFreesIn: 1,
      testFreesIn: 50,
    });
    // The count reads the index range of the last minute, not every kept render of the workspace.
    const plan = (await store.all<{ detail: string; }>(`EXPLAIN QUERY PLAN ${LAST_MINUTE_SQL}`, { ws, since: "" })).map((r) => r.detail);
    expect(plan.join(" / ")).toContain("created_at>?");
  });

  test("a request far under rendersPerMinute is allowed without counting the last minute; near it, renders older than 60 s do not refuse, and a refusal says when the window frees", async () => {
    const ws = (await store.tx((tx) => createWorkspace(tx, clock, { actor: CLI_ACTOR, requestId: "req_test" }, { name: "Per minute" }))).id;
    await store.tx((tx) => tx.run("UPDATE workspaces SET renders_per_minute = 3 WHERE id = $ws", { ws }));
    // What POST /v1/renders writes: the row, and its minute counted (renders/service.ts).
    const created = (id: string, at: string) =>
      store.tx(async (tx) => {
        await tx.run(`INSERT INTO renders (id, workspace_id, status, test, source, filename, metadata, created_at) VALUES ($id, $ws, 'succeeded', 0, 'html', 'a.pdf', '{}', $at)`, { id, ws, at });
        countRenders(tx, ws, false, new Date(at), 1);
      });
    const counted: boolean[] = [];
    const tx = watchTx(store, () => {
      let one = false;
      return { statement: (sql) => void (one ||= sql === LAST_MINUTE_SQL), done: () => void counted.push(one) };
    });
    const charge = () => tx((t) => chargeAllowances(t, clock, ws, { real: 1, test: 0 }));
    clock.set(new Date("2026-03-10T10:00:30.000Z"));
    await charge();
    expect(counted).toEqual([false]);
    // Three renders of the last minute, but 80 s ago: with the one just charged the two minutes' rows say 4, past the
    // allowance, while the last 60 seconds hold 0 renders — counted one by one, the request is allowed.
    for (const i of [1, 2, 3]) await created(`rnd_old${i}`, "2026-03-10T09:59:10.000Z");
    await charge();
    expect(counted).toEqual([false, true]);
    // Three inside the last 60 seconds (the oldest 50 s ago) refuse, with the exact Retry-After.
    for (const i of [1, 2, 3]) await created(`rnd_new${i}`, `2026-03-10T09:59:4${i}.000Z`);
    const refused = (await rejection(charge())) as ApiError;
    expect([refused.code, refused.retryAfter, refused.message]).toEqual(["RATE_LIMITED", 11, "The workspace created 3 renders in the last minute; its allowance is 3."]);
  });
});
