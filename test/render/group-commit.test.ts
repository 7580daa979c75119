/** GroupCommit (src/render/group-commit.ts): the changes of one turn of the event loop and `within` commit together,
 * or not at all; on both engines. */
import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/lib/clock";
import { GroupCommit } from "../../src/render/group-commit";
import type { Store, Tx } from "../../src/store/store";
import { ENGINES, testStores } from "../store/engines";
import { rejection } from "../wait";

const clock = new ManualClock("2026-03-10T10:00:00.000Z");
const stores = testStores("group_commit");

const addWorkspace = (tx: Tx, id: string) =>
  tx.run("INSERT INTO workspaces (id, name, slug, suspended, max_storage_bytes, created_at) VALUES ($id, $id, $id, 0, 1, $now)", { id, now: clock.now().toISOString() });
const ids = async (store: Store) => (await store.all<{ id: string }>("SELECT id FROM workspaces ORDER BY id")).map((r) => r.id);

for (const engine of ENGINES)
  describe(`GroupCommit on ${engine}`, () => {
    async function setUp() {
      const store = await stores.open(await stores.place(engine), clock);
      const heard = { committed: [] as string[], rolledBack: [] as string[] };
      const group = new GroupCommit(
        store,
        async (tx, changes) => (await addWorkspace(tx, `ws_within_${changes}`), `within ${changes}`),
        (r) => heard.rolledBack.push(r),
        (r) => heard.committed.push(r),
      );
      return { store, group, heard };
    }

    test("a change alone and `within` commit together", async () => {
      const { store, group, heard } = await setUp();
      expect(await group.write(async (tx) => (await addWorkspace(tx, "ws_a"), "a"))).toBe("a");
      expect(await ids(store)).toEqual(["ws_a", "ws_within_1"]);
      expect(heard).toEqual({ committed: ["within 1"], rolledBack: [] });
    });

    test("a change alone that fails takes `within`'s writes with it, and rolledBack hears what `within` did", async () => {
      const { store, group, heard } = await setUp();
      const failed = group.write(async (tx) => {
        await addWorkspace(tx, "ws_lost");
        throw new Error("the change failed");
      });
      expect((await rejection(failed)).message).toBe("the change failed");
      expect(await ids(store)).toEqual([]);
      expect(heard).toEqual({ committed: [], rolledBack: ["within 1"] });
    });

    test("of changes in one turn, one that fails fails alone", async () => {
      const { store, group, heard } = await setUp();
      const [a, b] = [
        group.write(async (tx) => (await addWorkspace(tx, "ws_a"), "a")),
        group.write(async (tx) => {
          await addWorkspace(tx, "ws_b");
          throw new Error("b failed");
        }),
      ];
      expect(await a).toBe("a");
      expect((await rejection(b)).message).toBe("b failed");
      expect(await ids(store)).toEqual(["ws_a", "ws_within_2"]);
      expect(heard).toEqual({ committed: ["within 2"], rolledBack: [] });
    });
  });
