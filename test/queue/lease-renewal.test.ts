/** Lease renewal (src/queue/lifecycle.ts renewLeases) on a shared store: it waits for no lock, so a render being ended
 * in another transaction — the renewing process's own group commit, which may wait in turn for a row the renewal holds —
 * neither blocks it nor is reported lost. */
import { expect, test } from "bun:test";
import { CLI_ACTOR } from "../../src/auth/actor";
import { ManualClock } from "../../src/lib/clock";
import { createWorkspace } from "../../src/modules/workspaces/service";
import { StoreQueue } from "../../src/queue/store-queue";
import { holdRows, testStores } from "../store/engines";

const clock = new ManualClock("2026-03-10T10:00:00.000Z");
const stores = testStores("lease_renewal");
const LEASE_MS = 30_000;

test("a renewal while another transaction holds one of the renders renews the rest at once and keeps that one", async () => {
  const place = await stores.place("postgres");
  const [store, other] = [await stores.open(place, clock), await stores.open(place, clock)];
  const queue = new StoreQueue(store, clock, LEASE_MS);
  const ws = await store.tx((tx) => createWorkspace(tx, clock, { actor: CLI_ACTOR, requestId: "req_renewal" }, { name: "Renewal" }));
  for (const id of ["rnd_held", "rnd_free"])
    await store.tx((tx) =>
      queue.enqueue(tx, { id, workspaceId: ws.id, test: false, source: "html", templateId: null, templateVersion: null, batchId: null, batchMerge: false, filename: "document.pdf", metadata: "{}", job: "{}", createdAt: clock.now().toISOString() }),
    );
  expect([(await queue.claim())?.renderId, (await queue.claim())?.renderId].sort()).toEqual(["rnd_free", "rnd_held"]);
  const expiry = async () => Object.fromEntries((await store.all<{ id: string; lease_expires_at: string }>("SELECT id, lease_expires_at FROM renders ORDER BY id")).map((r) => [r.id, r.lease_expires_at]));
  const claimed = await expiry();

  // Another transaction locks one of them (as an end being written does) and keeps it until told.
  const holder = await holdRows(other, "UPDATE renders SET pages = 1 WHERE id = 'rnd_held'");

  clock.advance(LEASE_MS / 3);
  const renewal = queue.renew(["rnd_held", "rnd_free"]).then((lost) => ({ lost }));
  const outcome = await Promise.race([renewal, Bun.sleep(2_000).then(() => "still waiting after 2 s")]);
  await holder.release();
  expect(outcome).toEqual({ lost: [] });
  const renewed = await expiry();
  expect(renewed.rnd_held).toBe(claimed.rnd_held);
  expect(renewed.rnd_free).toBe(new Date(clock.now().getTime() + LEASE_MS).toISOString());

  // Once the row is free again, the next renewal renews it.
  expect(await queue.renew(["rnd_held", "rnd_free"])).toEqual([]);
  expect((await expiry()).rnd_held).toBe(renewed.rnd_free);
});
