/** renders/allowances readUse on a real store: what the last minute holds, counted without reading older renders. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_ACTOR } from "../../../src/auth/actor";
import { ManualClock } from "../../../src/lib/clock";
import { LAST_MINUTE_SQL, readUse } from "../../../src/modules/renders/allowances";
import { createWorkspace } from "../../../src/modules/workspaces/service";
import { migrate } from "../../../src/store/migrate";
import { openStore } from "../../../src/store/open";
import type { Tx } from "../../../src/store/store";

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
});
