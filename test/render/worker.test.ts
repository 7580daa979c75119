/** RenderWorker (src/render/worker.ts) on a real SQLite store with the print stubbed (render/stub-pool.ts): a render whose
 * stored job cannot be read, a claim on its way when the worker stops, a lease renewal during a render's end, and the
 * claim made in the transaction that accepts a render, and the looks at the queue a render's end spares while the queue is
 * known empty. */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { ManualClock } from "../../src/lib/clock";
import { createLogger } from "../../src/logger";
import { StoreQueue } from "../../src/queue/store-queue";
import { poolOptions } from "../../src/render/pool";
import { StubPool } from "../../src/render/stub-pool";
import { RenderWorker } from "../../src/render/worker";
import { DiskFiles } from "../../src/store/files-disk";
import { migrate } from "../../src/store/migrate";
import { SpooledFiles } from "../../src/store/output-spool";
import { openStore } from "../../src/store/open";
import type { Store, Tx } from "../../src/store/store";
import type { Claim } from "../../src/queue/queue";
import type { PrintJob } from "../../src/render/job";
import { rejection, until } from "../wait";

const dataDir = mkdtempSync(join(tmpdir(), "renderd-worker-"));
// The file stores the workers wrote to: their last batches written, then closed, which ends their writers' threads.
const opened: SpooledFiles[] = [];
afterAll(async () => {
  for (const files of opened) await files.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** workerOn answers a worker of `concurrency` pages (one unless told) on `store` and the files under `dir`, printing in
 * `printMs` (the stub pool), which tells `onPrint` the HTML of each print it begins. */
function workerOn(dir: string, store: Store, clock: ManualClock, queue: StoreQueue, printMs = 0, concurrency = 1, onPrint?: (html: string) => void): RenderWorker {
  const log = createLogger("silent");
  const pool = new StubPool(poolOptions(loadConfig({ DATA_DIR: dir }), log), printMs);
  const render = pool.render.bind(pool);
  pool.render = (job, signal) => (onPrint?.(job.html), render(job, signal));
  const files = new SpooledFiles(new DiskFiles(dir), store, clock);
  opened.push(files);
  return new RenderWorker({ store, clock, log, files, queue, pool, concurrency, retentionDays: 30 });
}

/** claimsThrough answers `queue` with its claims made by `claim`, which is given the transaction (none for the worker's
 * own) and the real claim to make. */
function claimsThrough(queue: StoreQueue, claim: (tx: Tx | undefined, real: () => Promise<Claim | null>) => Promise<Claim | null>): StoreQueue {
  return Object.assign(Object.create(queue), { claim: (tx?: Tx) => claim(tx, () => queue.claim(tx)) });
}

/** Looks records every look at a queue, whether it found a render or not — "<render id or none> within|own": made in a
 * transaction (an acceptance's, an end's) or alone (the worker's own: at its start, after a wake-up, on its 1 s poll);
 * while `hold` is set, the worker's own looks are answered with nothing and counted in `held`. */
type Looks = { looks: string[]; hold: boolean; held: number };

/** recordingLooks answers `queue` with its looks recorded in the Looks it answers beside it. */
function recordingLooks(queue: StoreQueue): { watched: StoreQueue; record: Looks } {
  const record: Looks = { looks: [], hold: false, held: 0 };
  const watched = claimsThrough(queue, async (tx, real) => {
    if (record.hold && !tx) return (record.held += 1), null;
    const claim = await real();
    record.looks.push(`${claim?.renderId ?? "none"} ${tx ? "within" : "own"}`);
    return claim;
  });
  return { watched, record };
}

/** within answers the looks made in a transaction: a poll's own look may fall anywhere. */
const within = (record: Looks) => record.looks.filter((look) => look.endsWith(" within"));

/** queueOnStore opens a migrated store of its own holding workspace ws_a, and answers its queue, a render of ws_a to
 * queue by id, a render's status, another workspace made on demand, and the clean-up after the worker. */
async function queueOnStore(name: string) {
  const clock = new ManualClock("2026-03-10T10:00:00.000Z");
  const dir = mkdtempSync(join(tmpdir(), `renderd-worker-${name}-`));
  const store = openStore(dir);
  await migrate(store, clock);
  const queue = new StoreQueue(store, clock, 30_000);
  const now = clock.now().toISOString();
  const workspace = (slug: string) =>
    store.tx((tx) => tx.run("INSERT INTO workspaces (id, name, slug, suspended, max_storage_bytes, created_at) VALUES ($id, $name, $slug, 0, 1000000, $now)", { id: `ws_${slug}`, name: slug.toUpperCase(), slug, now }));
  await workspace("a");
  return {
    clock,
    dir,
    store,
    queue,
    workspace,
    render: (id: string) => ({ id, workspaceId: "ws_a", test: false, source: "html", templateId: null, templateVersion: null, batchId: null, batchMerge: false, filename: "a.pdf", metadata: "{}", job: JSON.stringify({ html: `<p>${id}</p>` }), createdAt: now }),
    status: async (id: string) => (await store.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id }))?.status,
    close: async (worker: RenderWorker) => {
      await worker.stop();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test("a claimed render whose stored job does not parse fails as RENDER_FAILED, and frees its page for the next", async () => {
  const clock = new ManualClock("2026-03-10T10:00:00.000Z");
  const store = openStore(dataDir);
  await migrate(store, clock);
  const queue = new StoreQueue(store, clock, 30_000);
  const worker = workerOn(dataDir, store, clock, queue);
  const now = clock.now().toISOString();
  const render = (id: string, job: string) => ({ id, workspaceId: "ws_a", test: false, source: "html", templateId: null, templateVersion: null, batchId: null, batchMerge: false, filename: "a.pdf", metadata: "{}", job, createdAt: now });
  await store.tx(async (tx) => {
    await tx.run("INSERT INTO workspaces (id, name, slug, suspended, max_storage_bytes, created_at) VALUES ('ws_a', 'A', 'a', 0, 1000000, $now)", { now });
    await queue.enqueue(tx, render("rnd_damaged", "{not json"));
    await queue.enqueue(tx, render("rnd_next", JSON.stringify({ html: "<p>next</p>" })));
  });
  const status = async (id: string) => await store.get<{ status: string; error_code: string | null }>("SELECT status, error_code FROM renders WHERE id = $id", { id });
  await worker.start();
  try {
    await until(async () => (await status("rnd_next"))?.status !== "queued" && (await status("rnd_damaged"))?.status === "failed");
    expect(await status("rnd_damaged")).toEqual({ status: "failed", error_code: "RENDER_FAILED" });
    // The one page was given back: the next render was claimed after it.
    await until(async () => (await status("rnd_next"))?.status === "succeeded");
    expect(worker.inFlight()).toEqual([]);
  } finally {
    await worker.stop();
    await store.close();
  }
});

test("stop() waits for a claim already on its way: the render it takes goes back to the queue, none starts printing after", async () => {
  const clock = new ManualClock("2026-03-10T10:00:00.000Z");
  const dir = mkdtempSync(join(tmpdir(), "renderd-worker-stop-"));
  const store = openStore(dir);
  await migrate(store, clock);
  const queue = new StoreQueue(store, clock, 30_000);
  // The claim's read of the queue held on the way (a slow network to PostgreSQL), until the test lets it go.
  let entered!: () => void;
  const claiming = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const slow = claimsThrough(queue, async (_tx, real) => (entered(), await gate, real()));
  const worker = workerOn(dir, store, clock, slow);
  const now = clock.now().toISOString();
  try {
    await store.tx((tx) => tx.run("INSERT INTO workspaces (id, name, slug, suspended, max_storage_bytes, created_at) VALUES ('ws_a', 'A', 'a', 0, 1000000, $now)", { now }));
    await worker.start();
    await claiming;
    const stopped = worker.stop();
    // The render arrives while that claim is on its way, and is what it finds.
    await store.tx((tx) => queue.enqueue(tx, { id: "rnd_late", workspaceId: "ws_a", test: false, source: "html", templateId: null, templateVersion: null, batchId: null, batchMerge: false, filename: "a.pdf", metadata: "{}", job: JSON.stringify({ html: "<p>late</p>" }), createdAt: now }));
    release();
    await stopped;
    await Bun.sleep(50);
    expect(await store.get("SELECT status FROM renders WHERE id = 'rnd_late'")).toEqual({ status: "queued" });
    expect(worker.inFlight()).toEqual([]);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a render claimed inside another's end is not given up by a lease renewal made before that end commits", async () => {
  const clock = new ManualClock("2026-03-10T10:00:00.000Z");
  const dir = mkdtempSync(join(tmpdir(), "renderd-worker-renew-"));
  const real = openStore(dir);
  await migrate(real, clock);
  // PostgreSQL's view, on SQLite: a claim made in a transaction not yet committed is read elsewhere as still queued,
  // so a renewal asking about it then finds it not held. A transaction that claimed takes 40 ms more to commit.
  const uncommitted = new Set<string>();
  const store: typeof real = Object.assign(Object.create(real), {
    tx: <T>(fn: (tx: Parameters<Parameters<typeof real.tx>[0]>[0]) => Promise<T>, options?: Parameters<typeof real.tx>[1]) =>
      real.tx(async (tx) => {
        const result = await fn(tx);
        if (uncommitted.size > 0) await Bun.sleep(40);
        return result;
      }, options).finally(() => uncommitted.clear()),
  });
  // Leases of 30 ms: renewed every 10 ms, so a renewal comes while an end commits.
  const queue = new StoreQueue(store, clock, 30);
  const renewals: string[][] = [];
  const racing: StoreQueue = Object.assign(Object.create(queue), {
    claim: async (tx?: Parameters<StoreQueue["claim"]>[0]) => {
      const claim = await queue.claim(tx);
      if (claim && tx) uncommitted.add(claim.renderId);
      return claim;
    },
    renew: async (ids: string[]) => {
      renewals.push(ids);
      // Read as PostgreSQL's statement would, when it begins: before the transaction holding the claim has committed.
      const seenQueued = ids.filter((id) => uncommitted.has(id));
      return [...new Set([...(await queue.renew(ids)), ...seenQueued])];
    },
  });
  const worker = workerOn(dir, store, clock, racing);
  const now = clock.now().toISOString();
  const render = (id: string) => ({ id, workspaceId: "ws_a", test: false, source: "html", templateId: null, templateVersion: null, batchId: null, batchMerge: false, filename: "a.pdf", metadata: "{}", job: JSON.stringify({ html: `<p>${id}</p>` }), createdAt: now });
  try {
    await real.tx(async (tx) => {
      await tx.run("INSERT INTO workspaces (id, name, slug, suspended, max_storage_bytes, created_at) VALUES ('ws_a', 'A', 'a', 0, 1000000, $now)", { now });
      for (const id of ["rnd_r1", "rnd_r2", "rnd_r3"]) await queue.enqueue(tx, render(id));
    });
    await worker.start();
    const status = async (id: string) => (await real.get<{ status: string }>("SELECT status FROM renders WHERE id = $id", { id }))?.status;
    await until(async () => (await status("rnd_r3")) === "succeeded", 5_000);
    expect([await status("rnd_r1"), await status("rnd_r2")]).toEqual(["succeeded", "succeeded"]);
    expect(renewals.length).toBeGreaterThan(0);
  } finally {
    await worker.stop();
    await real.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("with pages to spare, a render costs one look at the queue, its acceptance's claim: its end knows the queue empty and looks only after a wake-up", async () => {
  const { clock, dir, store, queue, workspace, render, status, close } = await queueOnStore("looks");
  const { watched, record } = recordingLooks(queue);
  const { looks } = record;
  const worker = workerOn(dir, store, clock, watched, 300, 4);
  const accept = (...ids: string[]) =>
    store.tx(async (tx) => {
      for (const id of ids) await queue.enqueue(tx, render(id));
      await worker.claimAccepted(tx, ids);
    });
  try {
    await worker.start();
    await until(async () => looks.length === 1);
    expect(looks).toEqual(["none own"]);
    looks.length = 0;
    await accept("rnd_one");
    await until(async () => (await status("rnd_one")) === "succeeded", 5_000);
    // Whatever else would look (the acceptance's wake-up, the worker after the end) has had its chance.
    await Bun.sleep(100);
    expect(within(record)).toEqual(["rnd_one within"]);
    // Two renders queued together: two claims, no third look; their ends look at nothing.
    looks.length = 0;
    await accept("rnd_two", "rnd_three");
    await until(async () => (await status("rnd_two")) === "succeeded" && (await status("rnd_three")) === "succeeded", 5_000);
    await Bun.sleep(100);
    expect(within(record).sort()).toEqual(["rnd_three within", "rnd_two within"]);
    // An older render of another workspace waits (the worker's own looks are held back for it): the acceptance's one
    // claim takes that one, fairly, and the wake-up it sends finds the new render at once.
    await workspace("b");
    record.hold = true;
    await store.tx((tx) => queue.enqueue(tx, { ...render("rnd_older"), workspaceId: "ws_b" }));
    // Held: the look its queueing woke, then the worker's 1 s poll's — the next poll is a second away.
    await until(() => record.held === 2, 5_000);
    record.hold = false;
    looks.length = 0;
    await accept("rnd_newer");
    // Within 250 ms: found neither by the older one's end (300 ms of print) nor by the next poll.
    await until(async () => (await status("rnd_newer")) !== "queued", 250);
    expect(looks.slice(0, 2)).toEqual(["rnd_older within", "rnd_newer own"]);
  } finally {
    await close(worker);
  }
});

test("a render queued while the one page prints is claimed by that render's end: its queueing's wake-up made the queue not known empty", async () => {
  const { clock, dir, store, queue, render, status, close } = await queueOnStore("busy");
  const { watched, record } = recordingLooks(queue);
  const worker = workerOn(dir, store, clock, watched, 300, 1);
  const accept = (id: string) =>
    store.tx(async (tx) => {
      await queue.enqueue(tx, render(id));
      await worker.claimAccepted(tx, [id]);
    });
  try {
    await worker.start();
    await until(async () => record.looks.length === 1);
    await accept("rnd_first");
    await accept("rnd_waiting");
    expect(await status("rnd_waiting")).toBe("queued");
    await until(async () => (await status("rnd_waiting")) === "succeeded", 5_000);
    // Claimed by the first one's end, in its transaction: not left for the poll.
    expect(within(record)).toContain("rnd_waiting within");
  } finally {
    await close(worker);
  }
});

test("a render another process queued without a wake-up here is found by the worker's poll, though the queue was known empty", async () => {
  const { clock, dir, store, queue, render, status, close } = await queueOnStore("elsewhere");
  let looks = 0;
  const worker = workerOn(dir, store, clock, claimsThrough(queue, async (_, real) => (looks++, real())), 0);
  // A second connection to the same file: its commits wake this process's worker no more than another process's would.
  const other = openStore(dir);
  try {
    await worker.start();
    await until(async () => looks === 1);
    await other.tx((tx) => new StoreQueue(other, clock, 30_000).enqueue(tx, render("rnd_elsewhere")));
    await until(async () => (await status("rnd_elsewhere")) === "succeeded", 5_000);
  } finally {
    await other.close();
    await close(worker);
  }
});

test("a render accepted while a page is free is claimed in its acceptance's transaction and starts once it commits; a rolled back acceptance claims nothing and keeps no page", async () => {
  const { clock, dir, store, queue, render, status, close } = await queueOnStore("accepted");
  // Which claims found a render: made inside a transaction the caller opened (`within`), or in one of their own.
  const claims: string[] = [];
  const watched = claimsThrough(queue, async (tx, real) => {
    const claim = await real();
    if (claim) claims.push(`${claim.renderId} ${tx ? "within" : "own"}`);
    return claim;
  });
  const worker = workerOn(dir, store, clock, watched, 100);
  // What POST /v1/renders does: queue, then claim for the free pages, in one transaction (renders/service.ts).
  const accept = (id: string, fail = false) =>
    store.tx(async (tx) => {
      await queue.enqueue(tx, render(id));
      await worker.claimAccepted(tx, [id]);
      if (fail) throw new Error("the acceptance failed after its claim");
    });
  // A look at the queue of the worker's own (at its start, after a render's end) counts as holding the page while it is
  // on its way: a render accepted meanwhile is found by that look, or by the one its acceptance wakes, not claimed within.
  const lookedAtQueue = () => Bun.sleep(50);
  try {
    await worker.start();
    await lookedAtQueue();
    await accept("rnd_first");
    // Committed claimed: it left the queue with its acceptance, and prints.
    expect(await status("rnd_first")).toBe("processing");
    expect(worker.inFlight().map((r) => r.renderId)).toEqual(["rnd_first"]);
    // The one page is busy: the next acceptance claims nothing, and its render waits for the first one's end.
    await accept("rnd_second");
    expect(await status("rnd_second")).toBe("queued");
    await until(async () => (await status("rnd_second")) === "succeeded", 5_000);
    expect(await status("rnd_first")).toBe("succeeded");
    // An acceptance rolled back after claiming: nothing stays claimed, nor counted as printing.
    await lookedAtQueue();
    expect(await rejection(accept("rnd_undone", true))).toHaveProperty("message", "the acceptance failed after its claim");
    expect(await status("rnd_undone")).toBeUndefined();
    expect(worker.inFlight()).toEqual([]);
    // … and the page it had taken is free: the next acceptance claims again.
    await accept("rnd_third");
    expect(await status("rnd_third")).toBe("processing");
    await until(async () => (await status("rnd_third")) === "succeeded", 5_000);
    expect(claims).toEqual(["rnd_first within", "rnd_second within", "rnd_undone within", "rnd_third within"]);
  } finally {
    await close(worker);
  }
});

test("with a page free, a render's print begins before its acceptance is written and its claim takes it over; a refused acceptance lets the print go, frees the page, and its workspace prints ahead again only once one of its renders is claimed", async () => {
  const { clock, dir, store, queue, render, status, close } = await queueOnStore("ahead");
  // The order of the prints begun and the claims made, each with its render: the print ahead comes first.
  const events: string[] = [];
  const watched = claimsThrough(queue, async (tx, real) => {
    const claim = await real();
    if (claim) events.push(`claim ${claim.renderId}${tx ? "" : " own"}`);
    return claim;
  });
  const worker = workerOn(dir, store, clock, watched, 100, 1, (html) => events.push(`print ${html.replace(/<\/?p>/g, "")}`));
  // What POST /v1/renders does (renders/index.ts): print ahead when it may, queue and claim in one transaction, let go.
  const accept = async (id: string, refuse = false) => {
    const ahead = worker.printAhead("ws_a", { html: `<p>${id}</p>` } as PrintJob);
    try {
      await store.tx(async (tx) => {
        await queue.enqueue(tx, render(id));
        await worker.claimAccepted(tx, [id], ahead && new Map([[id, ahead]]));
        if (refuse) throw new Error("over the allowance");
      });
    } finally {
      if (ahead) worker.letGo(ahead);
    }
    return ahead !== undefined;
  };
  const lookedAtQueue = () => Bun.sleep(50);
  try {
    await worker.start();
    await lookedAtQueue();
    // Printed ahead, then claimed within its acceptance: one print, which the render's end stores.
    expect(await accept("rnd_first")).toBe(true);
    expect(worker.inFlight().map((r) => r.renderId)).toEqual(["rnd_first"]);
    // The page is the first render's: the next acceptance prints nothing ahead, and its render waits in the queue.
    expect(await accept("rnd_second")).toBe(false);
    expect(await status("rnd_second")).toBe("queued");
    await until(async () => (await status("rnd_second")) === "succeeded", 5_000);
    expect(await status("rnd_first")).toBe("succeeded");
    expect(events).toEqual(["print rnd_first", "claim rnd_first", "claim rnd_second", "print rnd_second"]);
    // Refused after its claim: nothing stays, the print begun ahead is stopped and its page is free again.
    await lookedAtQueue();
    events.length = 0;
    expect(await rejection(accept("rnd_refused", true))).toHaveProperty("message", "over the allowance");
    expect(await status("rnd_refused")).toBeUndefined();
    expect(worker.inFlight()).toEqual([]);
    await lookedAtQueue();
    // The workspace's next acceptance does not print ahead, but is claimed within it: the page was given back.
    expect(await accept("rnd_after")).toBe(false);
    expect(await status("rnd_after")).toBe("processing");
    await until(async () => (await status("rnd_after")) === "succeeded", 5_000);
    await lookedAtQueue();
    // One of its renders claimed in its acceptance: it prints ahead again.
    expect(await accept("rnd_again")).toBe(true);
    await until(async () => (await status("rnd_again")) === "succeeded", 5_000);
    expect(events).toEqual(["print rnd_refused", "claim rnd_refused", "claim rnd_after", "print rnd_after", "print rnd_again", "claim rnd_again"]);
  } finally {
    await close(worker);
  }
});
