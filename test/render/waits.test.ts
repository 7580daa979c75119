/** RenderWaits: a `?wait` is answered when its render ends or its time is up — not when the print ended here without a
 * final state (an end that failed puts the render back in the queue). */
import { expect, test } from "bun:test";
import type { RenderRow } from "../../src/queue/queue";
import { RenderWaits } from "../../src/render/waits";

const waits = () => new RenderWaits({ engine: "sqlite" }, { inStatusAmong: async () => [] }, () => {});

/** settled answers whether `promise` has settled once the pending checks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await Bun.sleep(5);
  return done;
}

test("a print that ended without a final state leaves the wait going; the end that follows answers it with its row", async () => {
  const w = waits();
  let final = false;
  const waiting = w.waitEnded("rnd_1", 60_000, async () => final);
  w.ended("rnd_1");
  expect(await settled(waiting)).toBe(false);
  const row = { id: "rnd_1", status: "succeeded" } as RenderRow;
  final = true;
  w.ended("rnd_1", row);
  expect(await waiting).toBe(row);
});

test("an end without its row (a cancel) answers the wait once the render reads final", async () => {
  const w = waits();
  const waiting = w.waitEnded("rnd_2", 60_000, (() => {
    let asked = 0;
    // Not final when the wait starts; final when the cancel's end is told.
    return async () => ++asked > 1;
  })());
  await Bun.sleep(1);
  w.ended("rnd_2");
  expect(await waiting).toBeUndefined();
});

test("an end without its row is looked up once for every request waiting on the render", async () => {
  const w = waits();
  let reads = 0;
  let final = false;
  const isFinal = async () => (reads++, final);
  const waiting = [w.waitEnded("rnd_5", 60_000, isFinal), w.waitEnded("rnd_5", 60_000, isFinal)];
  await Bun.sleep(1);
  expect(reads).toBe(2);
  final = true;
  w.ended("rnd_5");
  expect(await Promise.all(waiting)).toEqual([undefined, undefined]);
  expect(reads).toBe(3);
});

test("endAll answers every wait at once, ended or not (the process is stopping)", async () => {
  const w = waits();
  const waiting = w.waitEnded("rnd_3", 60_000, async () => false);
  w.endAll();
  expect(await settled(waiting)).toBe(true);
});

test("the time running out answers the wait", async () => {
  const w = waits();
  expect(await w.waitEnded("rnd_4", 20, async () => false)).toBeUndefined();
});

test("a wait on a render printing in this process reads nothing when it starts; the worker's end answers it, with its row or by a read", async () => {
  const w = waits();
  let reads = 0;
  const isFinal = async () => (reads++, true);
  const withRow = w.waitEnded("rnd_6", 60_000, isFinal, true);
  expect(await settled(withRow)).toBe(false);
  expect(reads).toBe(0);
  const row = { id: "rnd_6", status: "succeeded" } as RenderRow;
  w.ended("rnd_6", row);
  expect(await withRow).toBe(row);
  // Ended without its row (cancelled meanwhile, its lease lost): read then, as any end without a row.
  const withoutRow = w.waitEnded("rnd_7", 60_000, isFinal, true);
  w.ended("rnd_7");
  expect(await withoutRow).toBeUndefined();
  expect(reads).toBe(1);
});

test("on a shared store a wait on a render printing here still watches the other processes, which may take it over", async () => {
  let asked = 0;
  const w = new RenderWaits({ engine: "postgres" }, { inStatusAmong: async (ids) => (asked++, asked >= 2 ? [...ids] : []) }, () => {});
  expect(await w.waitEnded("rnd_8", 60_000, async () => false, true)).toBeUndefined();
  expect(asked).toBe(2);
});
