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
    async function setUp(place?: Awaited<ReturnType<typeof stores.place>>, tag = "") {
      const store = await stores.open(place ?? (await stores.place(engine)), clock);
      const heard = { committed: [] as string[], rolledBack: [] as string[] };
      const group = new GroupCommit(
        store,
        async (tx, changes) => (await addWorkspace(tx, `ws_within_${tag}${changes}`), `within ${changes}`),
        (r) => heard.rolledBack.push(r),
        (r) => heard.committed.push(r),
      );
      return { store, group, heard };
    }

    test("a change alone and `within` commit together", async () => {
      const { store, group, heard } = await setUp();
      expect(await group.write("ws_a", async (tx) => (await addWorkspace(tx, "ws_a"), "a"))).toBe("a");
      expect(await ids(store)).toEqual(["ws_a", "ws_within_1"]);
      expect(heard).toEqual({ committed: ["within 1"], rolledBack: [] });
    });

    test("a change alone that fails takes `within`'s writes with it, and rolledBack hears what `within` did", async () => {
      const { store, group, heard } = await setUp();
      const failed = group.write("ws_lost", async (tx) => {
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
        group.write("ws_a", async (tx) => (await addWorkspace(tx, "ws_a"), "a")),
        group.write("ws_b", async (tx) => {
          await addWorkspace(tx, "ws_b");
          throw new Error("b failed");
        }),
      ];
      expect(await a).toBe("a");
      expect((await rejection(b)).message).toBe("b failed");
      expect(await ids(store)).toEqual(["ws_a", "ws_within_2"]);
      expect(heard).toEqual({ committed: ["within 2"], rolledBack: [] });
    });

    test("changes are written in the order of their keys, whatever order they came in", async () => {
      const { group } = await setUp();
      const written: string[] = [];
      const change = (key: string) => group.write(key, async () => written.push(key));
      await Promise.all([change("ws_c"), change("ws_a"), change("ws_b"), change("ws_a")]);
      expect(written).toEqual(["ws_a", "ws_a", "ws_b", "ws_c"]);
    });

    // Two processes ending renders of the same two workspaces at once, in opposite orders: each change locks its
    // workspace's row and keeps it a while (a render's end locks its usage rows until the commit). Written in the order
    // they came, the two transactions wait for each other until PostgreSQL ends one with `deadlock detected`. Only a
    // shared store has two processes: a SQLite file belongs to one.
    if (engine === "postgres")
      test("two processes whose changes of the same rows come in opposite orders both commit", async () => {
        const place = await stores.place(engine);
        const [one, two] = [await setUp(place, "one_"), await setUp(place, "two_")];
        await one.store.tx(async (tx) => (await addWorkspace(tx, "ws_a"), await addWorkspace(tx, "ws_b")));
        const touch = (group: GroupCommit<string>, key: string) =>
          group.write(key, async (tx) => {
            await tx.run("UPDATE workspaces SET name = name || '+' WHERE id = $id", { id: key });
            await Bun.sleep(100);
            return key;
          });
        const ends = await Promise.allSettled([touch(one.group, "ws_b"), touch(one.group, "ws_a"), touch(two.group, "ws_a"), touch(two.group, "ws_b")]);
        expect(ends.map((e) => (e.status === "fulfilled" ? e.value : String(e.reason)))).toEqual(["ws_b", "ws_a", "ws_a", "ws_b"]);
        expect(await one.store.all("SELECT id, name FROM workspaces WHERE id IN ('ws_a', 'ws_b') ORDER BY id")).toEqual([
          { id: "ws_a", name: "ws_a++" },
          { id: "ws_b", name: "ws_b++" },
        ]);
      });
  });

