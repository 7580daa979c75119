/**
 * scale-out-postgres: issue 15's multi-process test — three real `renderd serve` processes, each with its own DATA_DIR
 * and ports, on ONE shared store (PostgreSQL, Redis, s3rver: test/backends.ts). 300 renders from three workspaces of
 * unequal size are sent round-robin to the three; one process is killed with SIGKILL mid-run. Then: every render ends
 * exactly once, the fair pick (spec 8.1 (5)) held across processes over the whole run, the killed process's renders came
 * back after their lease, each webhook event was delivered once, and the limits per minute hold across processes.
 *
 * The order of claims is read from the store itself: a trigger the test adds to its own database logs each render's
 * creation and every change of its status, numbered by one sequence, with the writing transaction's id, the time its
 * statement arrived and the snapshot the trigger ran with. Processes claim at the same time (each row locked alone,
 * docs/scale-out.md "Locks"), so the numbering alone is not what each claimer saw: two claims neither of which saw the
 * other's commit are simultaneous, and a render the claim did not see was not waiting for it. What a statement saw is
 * told by the logged snapshots: a transaction some trigger's snapshot shows committed was visible from that line's time
 * on, so a statement that arrived later saw it. A commit's own recorded time does not tell: a commit becomes visible a
 * little after it — milliseconds when its backend is preempted on a busy machine.
 */
import { afterEach, expect, test } from "bun:test";
import { SQL } from "bun";
import { CLI_ACTOR } from "../src/auth/actor";
import type { Scope } from "../src/auth/scopes";
import { systemClock } from "../src/lib/clock";
import { createApiKey } from "../src/modules/api-keys/service";
import { createWorkspace, replaceAllowances } from "../src/modules/workspaces/service";
import { sharedStoreEnv } from "./backends";
import { ROOT, startServe, type ServeProcess } from "./serve-process";
import { until } from "./wait";
import { RECEIVER_ENV, startReceiver, type Receiver } from "./webhooks/receiver";

const SERVE = [process.execPath, `${ROOT}/cli/main.ts`];
const SCOPES: Scope[] = ["render:create", "render:read", "webhook:manage", "usage:read"];
const CTX = { actor: CLI_ACTOR, requestId: "req_test" };

let serves: ServeProcess[] = [];
let receiver: Receiver | undefined;
let sql: SQL | undefined;
afterEach(async () => {
  await Promise.all(serves.map((s) => s.stop()));
  serves = [];
  receiver?.stop();
  receiver = undefined;
  await sql?.close();
  sql = undefined;
});

/** startThree starts three processes on one shared store together (the first-start bootstrap races on purpose). */
async function startThree(env: Record<string, string>): Promise<ServeProcess[]> {
  return Promise.all([0, 1, 2].map(() => startServe(SERVE, { LOG_LEVEL: "error", ...env })));
}

/** makeWorkspaces creates workspaces with room for the whole run (allowances of spec 2.2 beyond what is sent) and a key each. */
async function makeWorkspaces(serve: ServeProcess, names: string[], allowances = { maxActiveRenders: 1000, rendersPerMinute: 10_000 }): Promise<Array<{ id: string; key: string }>> {
  const store = await serve.openStore();
  try {
    return await Promise.all(names.map(async (name) => {
      const ws = await store.tx((tx) => createWorkspace(tx, systemClock, CTX, { name }));
      await replaceAllowances(store, systemClock, CTX, ws.id, allowances);
      return { id: ws.id, key: (await createApiKey(store, systemClock, CTX, ws.id, { name: "scale-out", scopes: SCOPES })).secret };
    }));
  } finally {
    await store.close();
  }
}

/** logRenderEvents adds the trigger that numbers every render's creation and status change (the header says why). */
async function logRenderEvents(db: SQL): Promise<void> {
  await db.unsafe(`
    CREATE TABLE test_render_events (seq BIGSERIAL PRIMARY KEY, render_id TEXT NOT NULL, workspace_id TEXT NOT NULL, status TEXT NOT NULL, owner TEXT,
      txid TEXT NOT NULL DEFAULT pg_current_xact_id()::text, snap TEXT NOT NULL DEFAULT pg_current_snapshot()::text,
      arrived TEXT NOT NULL DEFAULT (extract(epoch FROM statement_timestamp()) * 1000000)::bigint::text,
      at TEXT NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint::text);
    CREATE FUNCTION test_log_render() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO test_render_events (render_id, workspace_id, status, owner) VALUES (NEW.id, NEW.workspace_id, NEW.status, NEW.lease_owner);
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER test_log_render AFTER INSERT OR UPDATE ON renders FOR EACH ROW EXECUTE FUNCTION test_log_render();
  `);
}

type RenderEvent = { seq: number; render_id: string; workspace_id: string; status: string; owner: string | null; txid: string; snap: string; arrived: string; at: string };

/** Snapshot is a logged line's snapshot (xmin:xmax:in-progress ids) with the line's transaction and times (µs). */
type Snapshot = { txid: string; arrived: bigint; at: bigint; xmin: bigint; xmax: bigint; running: Set<string> };

// A time no line reaches: never seen, never ended.
const NEVER = BigInt(Number.MAX_SAFE_INTEGER);

/** snapshots reads each line's snapshot, once for every rule that judges by them. */
function snapshots(events: RenderEvent[]): Snapshot[] {
  return events.map((e) => {
    const [xmin, xmax, inProgress = ""] = e.snap.split(":");
    return { txid: e.txid, arrived: BigInt(e.arrived), at: BigInt(e.at), xmin: BigInt(xmin!), xmax: BigInt(xmax!), running: new Set(inProgress.split(",").filter(Boolean)) };
  });
}

/** firstSeenCommitted answers, for a transaction of the log, the first time (µs) a logged snapshot shows it committed:
 * a trigger's snapshot is taken after its statement arrived and before the line's time, so the transaction was visible
 * from that time on (another transaction's snapshot: a transaction's own does not list it in progress). Never, for one no
 * snapshot shows committed. */
function firstSeenCommitted(snaps: readonly Snapshot[]): (txid: string) => bigint {
  const first = new Map<string, bigint>();
  return (txid) => {
    let at = first.get(txid);
    if (at === undefined) {
      at = NEVER;
      const x = BigInt(txid);
      for (const s of snaps) if (s.at < at && s.txid !== txid && x < s.xmax && !s.running.has(txid)) at = s.at;
      first.set(txid, at);
    }
    return at;
  };
}

/** Aborted is a transaction that rolled back and when it may have run (µs): from the time a statement arrived whose
 * snapshot shows its id not yet given out, to the time of a line whose snapshot shows it ended. */
type Aborted = { txid: string; from: bigint; until: bigint };

/** abortedTransactions answers the transactions of the run that rolled back — the killed process's: its last
 * transaction, which may have been claiming (locking) a render, never committed. Every id the logged snapshots span is
 * asked, not only those some snapshot shows in progress: a claim skipped a render such a transaction had locked, while
 * its own trigger's snapshot, taken later, may be the first after the transaction had ended, and no other line's fell
 * within its life. */
async function abortedTransactions(db: SQL, snaps: readonly Snapshot[]): Promise<Aborted[]> {
  const lowest = snaps.reduce((m, s) => (s.xmin < m ? s.xmin : m), snaps[0]!.xmin);
  const highest = snaps.reduce((m, s) => (s.xmax > m ? s.xmax : m), snaps[0]!.xmax);
  const rows = await db.unsafe(`SELECT x::text AS x FROM generate_series(${lowest}::bigint, ${highest - 1n}::bigint) AS x WHERE pg_xact_status(x::text::xid8) = 'aborted'`);
  return rows.map(({ x }: { x: string }) => {
    const id = BigInt(x);
    // A snapshot whose xmax is at most the id was taken before the id was given out, after its statement arrived.
    const before = snaps.filter((s) => s.xmax <= id).map((s) => s.arrived);
    // A snapshot past the id that does not show it in progress was taken after it ended, before its line's time.
    const after = snaps.filter((s) => s.xmax > id && s.txid !== x && !s.running.has(x)).map((s) => s.at);
    return {
      txid: x,
      from: before.reduce((m, t) => (t > m ? t : m), 0n),
      until: after.reduce((m, t) => (t < m ? t : m), NEVER),
    };
  });
}

/** unfairClaims replays the log and answers each claim that broke spec 8.1 (5): workspace W served a second time while
 * another workspace V had waited, unserved, since before W's previous claim. */
function unfairClaims(events: RenderEvent[], snaps: readonly Snapshot[], aborted: readonly Aborted[]): string[] {
  // The statement that wrote `e` saw `txid`'s commit: a snapshot showed it committed before the statement arrived. Every
  // transaction of the log committed: a rolled-back one's lines rolled back with it.
  const seenAt = firstSeenCommitted(snaps);
  const sees = (e: RenderEvent, txid: string) => seenAt(txid) < BigInt(e.arrived);
  const waiting = new Map<string, number>();
  const waitingSince = new Map<string, number>();
  const lastServed = new Map<string, number>();
  const broken: string[] = [];
  const change = (ws: string, by: number, seq: number) => {
    const n = (waiting.get(ws) ?? 0) + by;
    if (n > 0 && !waitingSince.has(ws)) waitingSince.set(ws, seq);
    if (n === 0) waitingSince.delete(ws);
    waiting.set(ws, n);
  };
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  const claimsOf = Map.groupBy(events.filter((e) => e.status === "processing"), (e) => e.workspace_id);
  // The other workspace's next claim after `seq`, if any.
  const nextClaim = (ws: string, seq: number) => claimsOf.get(ws)?.find((c) => c.seq > seq);
  for (const e of events) {
    if (e.status === "queued") change(e.workspace_id, 1, e.seq);
    if (e.status !== "processing") continue;
    const previous = lastServed.get(e.workspace_id);
    if (previous !== undefined)
      for (const [other, since] of waitingSince) {
        if (other === e.workspace_id || since >= previous || (lastServed.get(other) ?? -1) >= previous) continue;
        // Not waiting for this claim: its render was not committed when the claim looked.
        if (!sees(e, bySeq.get(since)!.txid)) continue;
        // Served at the same time: this workspace's previous claim and this one were made at the same moment (each judged
        // the workspace unserved, neither seeing the other's turn); the other's next claim overlapped this one; or one of
        // its claims overlapped this workspace's previous one — a turn is written at the claim's commit, so of claims
        // made at the same moment the one numbered first may record the later turn.
        const overlap = (a: RenderEvent, b: RenderEvent) => !sees(a, b.txid) && !sees(b, a.txid);
        const before = bySeq.get(previous)!;
        if (overlap(before, e)) continue;
        const next = nextClaim(other, e.seq);
        if (next && overlap(next, e)) continue;
        if ((claimsOf.get(other) ?? []).some((c) => c.seq < e.seq && overlap(c, before))) continue;
        // V's first was being claimed by a transaction that then rolled back (the killed process's): a claimer skips a
        // render another holds, and a claim that never committed leaves no line in the log. It may have held it while
        // this claim's statement ran.
        if (aborted.some((a) => a.from <= BigInt(e.at) && a.until >= BigInt(e.arrived))) continue;
        broken.push(`claim #${e.seq} of ${e.workspace_id} while ${other} waited since #${since}, unserved since before #${previous}\n${described(events, aborted, Math.max(previous, e.seq - 12) - 2, e.seq + 4)}`);
      }
    lastServed.set(e.workspace_id, e.seq);
    change(e.workspace_id, -1, e.seq);
  }
  return broken;
}

/** described tells the log's lines `from`..`to` and the rolled-back transactions, times in ms from the first line's
 * arrival: what a failed fairness check needs to be judged from CI's log alone. */
function described(events: RenderEvent[], aborted: readonly Aborted[], from: number, to: number): string {
  const t0 = BigInt(events[0]!.arrived);
  const ms = (us: bigint) => (us >= NEVER ? "never" : (Number(us - t0) / 1000).toFixed(2));
  const lines = events
    .filter((e) => e.seq >= from && e.seq <= to)
    .map((e) => `  #${e.seq} ${e.workspace_id} ${e.status} ${e.owner ?? "-"} tx ${e.txid} snap ${e.snap} ${ms(BigInt(e.arrived))}..${ms(BigInt(e.at))}`);
  return [...lines, ...aborted.map((a) => `  rolled back: tx ${a.txid} ${ms(a.from)}..${ms(a.until)}`)].join("\n");
}

/** poll asks `condition` every 50 ms until it holds, failing after `ms` with `what`. */
async function poll(condition: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(what);
    await Bun.sleep(50);
  }
}

/** shuffled answers a fixed shuffle of `items` (the same on every run). */
function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  let seed = 15;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

test("300 renders of three workspaces on three processes, one killed with SIGKILL mid-run: each ends once, fairly, each webhook event delivered once", async () => {
  const env: Record<string, string> = { ...(await sharedStoreEnv()), RENDER_WORKERS: "1", RENDER_LEASE_MS: "3000", ...RECEIVER_ENV, API_RATE_LIMIT_PER_MINUTE: "100000" };
  serves = await startThree(env);
  sql = new SQL(env.DATABASE_URL!, { max: 1 });
  // Three processes started together on an empty store: one bootstrap among them.
  expect(await sql`SELECT (SELECT COUNT(*) FROM workspaces WHERE slug = 'default')::int AS workspaces, (SELECT COUNT(*) FROM users)::int AS users`).toEqual([{ workspaces: 1, users: 1 }]);
  await logRenderEvents(sql);

  const sizes = [200, 70, 30];
  const workspaces = await makeWorkspaces(serves[0]!, ["Large", "Medium", "Small"]);
  receiver = startReceiver();
  for (const [i, ws] of workspaces.entries()) {
    const made = await serves[i]!.call("/v1/webhook-endpoints", ws.key, { url: `${receiver.url}/${ws.id}`, eventTypes: ["render.succeeded", "render.failed"] });
    expect(made.status).toBe(201);
  }

  // Sent round-robin to the three processes by four clients at once; each answer 202 is an acknowledged render.
  const sends = shuffled(sizes.flatMap((n, w) => Array.from({ length: n }, () => w)));
  const accepted: Array<{ id: string; workspace: number }> = [];
  let next = 0;
  const client = async () => {
    while (next < sends.length) {
      const i = next++;
      const w = sends[i]!;
      const made = await serves[i % 3]!.call("/v1/renders", workspaces[w]!.key, { html: `<p>render ${i} of workspace ${w}</p>` });
      expect(made.status).toBe(202);
      accepted.push({ id: made.body.id, workspace: w });
    }
  };
  await Promise.all([client(), client(), client(), client()]);
  expect(accepted.length).toBe(300);

  // Mid-run: once a third has succeeded and every process holds a claim, the second process dies without a word.
  const claimsHeld = async () =>
    (await sql!<{ owner: string }[]>`SELECT DISTINCT lease_owner AS owner FROM renders WHERE status = 'processing'`).map((r) => r.owner);
  const succeededSoFar = async () => (await sql!`SELECT COUNT(*)::int AS n FROM renders WHERE status = 'succeeded'`)[0].n as number;
  await poll(async () => (await succeededSoFar()) >= 100 && (await claimsHeld()).length === 3, 60_000, "the run never reached a third with every process printing");
  const victim = serves[1]!;
  victim.proc.kill("SIGKILL");
  await victim.proc.exited;
  const [{ seq: killedAt }] = await sql`SELECT COALESCE(MAX(seq), 0)::int AS seq FROM test_render_events`;
  const held = await sql<{ id: string; lease_owner: string }[]>`SELECT id, lease_owner FROM renders WHERE status = 'processing'`;
  const leaseOwner = await sql<{ owner: string }[]>`SELECT DISTINCT owner FROM test_render_events WHERE status = 'processing' AND seq <= ${killedAt}`;
  const survivors = serves.filter((s) => s !== victim);

  // Every acknowledged render ends, read through any process's API; the killed one's came back after their lease.
  const open = async () => (await sql!`SELECT COUNT(*)::int AS n FROM renders WHERE status IN ('queued', 'processing')`)[0].n as number;
  await poll(async () => (await open()) === 0, 60_000, "renders still open a minute after the kill");
  for (const [i, r] of accepted.entries()) {
    const read = await survivors[i % 2]!.call(`/v1/renders/${r.id}`, workspaces[r.workspace]!.key);
    expect([r.id, read.body.status]).toEqual([r.id, "succeeded"]);
  }

  const events = await sql<RenderEvent[]>`SELECT seq::int AS seq, render_id, workspace_id, status, owner, txid, snap, arrived, at FROM test_render_events ORDER BY seq`;
  // Exactly once: one success per render, and no claim after it.
  const byRender = Map.groupBy(events, (e) => e.render_id);
  expect(byRender.size).toBe(300);
  for (const [id, list] of byRender) {
    const ends = list.filter((e) => ["succeeded", "failed", "cancelled"].includes(e.status));
    expect([id, ends.map((e) => e.status)]).toEqual([id, ["succeeded"]]);
    expect([id, list.at(-1)!.status]).toEqual([id, "succeeded"]);
  }
  // The killed process held claims; each went back to the queue and was printed by a survivor.
  const deadOwners = new Set(leaseOwner.map((o) => o.owner).filter((o) => !events.some((e) => e.seq > killedAt && e.owner === o && e.status === "processing")));
  expect(deadOwners.size).toBe(1);
  const cutOff = held.filter((h) => deadOwners.has(h.lease_owner));
  expect(cutOff.length).toBeGreaterThan(0);
  for (const { id } of cutOff) {
    const list = byRender.get(id)!;
    const afterKill = list.filter((e) => e.seq > killedAt);
    expect([id, afterKill.map((e) => e.status)]).toEqual([id, ["queued", "processing", "succeeded"]]);
    expect(deadOwners.has(afterKill[1]!.owner!)).toBe(false);
  }

  // The fair pick held over the whole run, across the three processes and the kill.
  const snaps = snapshots(events);
  expect(unfairClaims(events, snaps, await abortedTransactions(sql, snaps))).toEqual([]);

  // Usage (spec 2.10) counts each render once, per workspace.
  for (const [w, ws] of workspaces.entries()) {
    const usage = await survivors[w % 2]!.call("/v1/usage", ws.key);
    expect([w, usage.body.totals.rendersSucceeded]).toEqual([w, sizes[w]]);
  }

  // Each event was delivered, and once. A delivery the killed process held is sent again after its lease (at least once,
  // docs/webhooks.md), which runs the webhook timeout plus a minute: once the survivors have sent theirs, a lease still
  // running is the dead process's, and this test moves its end to now rather than wait. Only such a delivery may arrive
  // twice (the dead process may have sent it before recording it).
  const leased = async () =>
    (await sql!`SELECT COUNT(*)::int AS n FROM webhook_deliveries WHERE status = 'pending' AND lease_expires_at > ${new Date().toISOString()}`)[0].n as number;
  await poll(async () => receiver!.requests.length + (await leased()) >= 300, 30_000, "webhook events neither delivered nor held");
  await Bun.sleep(500);
  const now = new Date().toISOString();
  const cut = await sql<{ event_id: string }[]>`UPDATE webhook_deliveries SET lease_expires_at = ${now} WHERE status = 'pending' AND lease_expires_at > ${now} RETURNING event_id`;
  const cutDeliveries = new Set(cut.map((c) => c.event_id));
  await until(() => receiver!.requests.length >= 300, 30_000);
  await Bun.sleep(1_000);
  const deliveries = Map.groupBy(receiver.requests, (r) => (JSON.parse(r.body) as { id: string }).id);
  expect(deliveries.size).toBe(300);
  const repeated = [...deliveries].filter(([, list]) => list.length > 1).map(([id]) => id);
  expect(repeated.filter((id) => !cutDeliveries.has(id))).toEqual([]);
  const renderOfEvent = new Set([...deliveries.values()].map((list) => (JSON.parse(list[0]!.body) as { data: { renderId: string } }).data.renderId));
  expect(renderOfEvent.size).toBe(300);
  for (const { workspace, id } of accepted) expect(receiver.requests.find((r) => r.path === `/${workspaces[workspace]!.id}` && r.body.includes(id))).toBeDefined();
}, 110_000);

test("limits per minute hold across three processes: API_RATE_LIMIT_PER_MINUTE=N admits N, a workspace's rendersPerMinute=M admits M renders", async () => {
  const [N, M] = [20, 5];
  // A store of its own counts in a Redis database of its own (test/backends.ts): the run above's requests are not here.
  serves = await startThree({ ...(await sharedStoreEnv()), API_RATE_LIMIT_PER_MINUTE: String(N) });
  const [ws] = await makeWorkspaces(serves[0]!, ["Limited"], { maxActiveRenders: 1000, rendersPerMinute: M });
  // Every request inside one minute window: start with at least 15 s of it left.
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await Bun.sleep(60_000 - intoMinute + 100);

  // 2M renders round-robin: M accepted, whichever process each one reached; the rest refused by the allowance (spec 2.2).
  const renders: Array<{ status: number; body: any }> = [];
  for (let i = 0; i < 2 * M; i++) renders.push(await serves[i % 3]!.call("/v1/renders", ws!.key, { html: `<p>${i}</p>` }));
  expect(renders.map((r) => r.status)).toEqual([...Array(M).fill(202), ...Array(M).fill(429)]);
  expect(renders[M]!.body.error.message).toBe(`The workspace created ${M} renders in the last minute; its allowance is ${M}.`);
  // Then reads until 3N requests in all: the limiter admitted N of them, counted in one Redis key by the three.
  const reads: number[] = [];
  for (let i = 2 * M; i < 3 * N; i++) reads.push((await serves[i % 3]!.call("/v1/usage", ws!.key)).status);
  expect(reads).toEqual([...Array(N - 2 * M).fill(200), ...Array(2 * N).fill(429)]);
}, 90_000);
