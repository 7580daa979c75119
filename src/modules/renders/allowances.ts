/** renders/allowances: whether a workspace may create renders now (spec 2.2, 8.1) — the pure decision, and the
 * reading of what the workspace uses, which the decision is made on. */
import { ApiError } from "../../errors";
import type { Clock } from "../../lib/clock";
import type { Reads, Tx } from "../../store/store";
import { addToCounter, dayOf, monthOf, renderCounters } from "../../ledger/counters";
import { countRenders, rendersAtMost } from "../../ledger/render-minutes";
import type { CompanyAllowances } from "../workspaces/model";
import { lockWorkspace } from "../workspaces/service";
import type { RenderActivity } from "./model";

/** spec 8.1 (3): every workspace's test allowance, outstanding and per minute; its own allowance wins when lower. */
export const TEST_ALLOWANCE = 10;

const MINUTE_MS = 60_000;

/** Demand is what a request would create: real renders, test renders and XLSX documents (counted, never rendered). */
export interface Demand {
  real: number;
  test: number;
  xlsx?: number;
}

/** Use is what the workspace has now, per kind of render. */
export interface Use {
  activeReal: number;
  activeTest: number;
  realLastMinute: number;
  testLastMinute: number;
  /** Seconds until the oldest render of the last minute leaves the window, per kind (at least 1). */
  realWindowFreesIn: number;
  testWindowFreesIn: number;
  documentsThisMonth: number;
  testRendersToday: number;
}

/** allowanceRefusal answers why `demand` is refused (the error to throw), or null when it is allowed. */
export function allowanceRefusal(allowances: CompanyAllowances, use: Use, demand: Demand): ApiError | null {
  if (allowances.suspended) return new ApiError("FORBIDDEN", "The workspace is suspended; it renders nothing.");
  const documents = demand.real + (demand.xlsx ?? 0);
  if (demand.real > 0) {
    if (use.activeReal + demand.real > allowances.maxActiveRenders)
      return rateLimited(`The workspace has ${use.activeReal} renders in progress; its allowance is ${allowances.maxActiveRenders} at once.`, 1);
    if (use.realLastMinute + demand.real > allowances.rendersPerMinute)
      return rateLimited(`The workspace created ${use.realLastMinute} renders in the last minute; its allowance is ${allowances.rendersPerMinute}.`, use.realWindowFreesIn);
  }
  if (documents > 0 && allowances.documentsPerMonth !== null && use.documentsThisMonth + documents > allowances.documentsPerMonth)
    return new ApiError("QUOTA_EXCEEDED", `The workspace produced ${use.documentsThisMonth} of its ${allowances.documentsPerMonth} documents this month.`);
  if (demand.test > 0) {
    const outstanding = Math.min(TEST_ALLOWANCE, allowances.maxActiveRenders);
    if (use.activeTest + demand.test > outstanding)
      return rateLimited(`The workspace has ${use.activeTest} test renders in progress; test renders are allowed ${outstanding} at once.`, 1);
    const perMinute = Math.min(TEST_ALLOWANCE, allowances.rendersPerMinute);
    if (use.testLastMinute + demand.test > perMinute)
      return rateLimited(`The workspace created ${use.testLastMinute} test renders in the last minute; test renders are allowed ${perMinute} a minute.`, use.testWindowFreesIn);
    if (allowances.testRendersPerDay !== null && use.testRendersToday + demand.test > allowances.testRendersPerDay)
      return new ApiError("QUOTA_EXCEEDED", `The workspace created ${use.testRendersToday} of its ${allowances.testRendersPerDay} test renders today.`);
  }
  return null;
}

function rateLimited(message: string, retryAfter: number): ApiError {
  return new ApiError("RATE_LIMITED", message, { retryAfter });
}

/** LAST_MINUTE_SQL counts a workspace's renders created since `$since`, real and test apart. `test IN (0, 1)` names
 * every value the column holds (its CHECK), so the count is the same as without it; it lets the index on (workspace_id,
 * test, created_at) read only the last minute's entries instead of every render the workspace has kept, which made
 * each POST cost ~4 ms of CPU at 100,000 kept renders (~0.1 ms at 100). */
export const LAST_MINUTE_SQL =
  "SELECT test, COUNT(*) AS n, MIN(created_at) AS oldest FROM renders WHERE workspace_id = $ws AND test IN (0, 1) AND created_at > $since GROUP BY test";

type LastMinute = Pick<Use, "realLastMinute" | "testLastMinute" | "realWindowFreesIn" | "testWindowFreesIn">;

/** lastMinute counts the renders of the last 60 seconds one by one, and when the oldest of each kind leaves them. */
async function lastMinute(db: Reads, workspaceId: string, now: Date): Promise<LastMinute> {
  const since = new Date(now.getTime() - MINUTE_MS).toISOString();
  const recent = await db.all<{ test: number; n: number; oldest: string }>(LAST_MINUTE_SQL, { ws: workspaceId, since });
  const count = (test: number) => recent.find((r) => r.test === test)?.n ?? 0;
  const freesIn = (test: number) => {
    const oldest = recent.find((r) => r.test === test)?.oldest;
    return oldest ? Math.max(1, Math.ceil((new Date(oldest).getTime() + MINUTE_MS - now.getTime()) / 1000)) : 1;
  };
  return { realLastMinute: count(0), testLastMinute: count(1), realWindowFreesIn: freesIn(0), testWindowFreesIn: freesIn(1) };
}

/** lastMinuteAtMost answers no fewer renders than the last 60 seconds hold, from two rows of render_minutes, and the
 * longest the window may take to free a place (a minute). */
async function lastMinuteAtMost(db: Reads, workspaceId: string, now: Date): Promise<LastMinute> {
  const { real, test } = await rendersAtMost(db, workspaceId, now);
  return { realLastMinute: real, testLastMinute: test, realWindowFreesIn: 60, testWindowFreesIn: 60 };
}

/** readUse answers what a workspace uses now; read it in the transaction that then creates the renders. Its reads go
 * out together (one round trip on PostgreSQL). With `minute` "at most" the last minute's renders are bounded from above
 * (lastMinuteAtMost) rather than counted: enough to allow a request, not to refuse one. */
export async function readUse(store: Reads, clock: Clock, workspaceId: string, minute: "exact" | "at most" = "exact"): Promise<Use> {
  const now = clock.now();
  const [active, recent, counters] = await Promise.all([
    store.all<{ test: number; n: number }>("SELECT test, COUNT(*) AS n FROM renders WHERE workspace_id = $ws AND status IN ('queued', 'processing') GROUP BY test", {
      ws: workspaceId,
    }),
    minute === "exact" ? lastMinute(store, workspaceId, now) : lastMinuteAtMost(store, workspaceId, now),
    renderCounters(store, workspaceId, now),
  ]);
  const count = (rows: { test: number; n: number }[], test: number) => rows.find((r) => r.test === test)?.n ?? 0;
  return { activeReal: count(active, 0), activeTest: count(active, 1), ...recent, ...counters };
}

/** renderActivity answers the workspace's outstanding (queued or processing) renders, real and test apart. */
export async function renderActivity(store: Reads, clock: Clock, workspaceId: string): Promise<RenderActivity> {
  // Only the renders at once are answered: the last minute's are bounded, not counted.
  const use = await readUse(store, clock, workspaceId, "at most");
  return { activeRenders: use.activeReal, activeTestRenders: use.activeTest };
}

/** chargeAllowances throws when the workspace's allowances refuse `demand`, else counts its documents and test renders
 * (spec 2.3) and its renders of the minute, created `at`, in `tx`, the transaction that creates what it counts, so a
 * refused or failed request counts nothing. The workspace's row is locked first: requests of one workspace are decided
 * one after the other, on every process, and the others' never wait (docs/scale-out.md "Locks"). The lock and the
 * reads go out together: the reads run after it. The last minute's renders are counted one by one only when their
 * bound would refuse (a refusal's figures and Retry-After are the exact ones). */
export async function chargeAllowances(tx: Tx, clock: Clock, workspaceId: string, demand: Demand, at = clock.now()): Promise<void> {
  const [allowances, bounded] = await Promise.all([lockWorkspace(tx, workspaceId), readUse(tx, clock, workspaceId, "at most")]);
  const refusedAtMost = allowanceRefusal(allowances, bounded, demand);
  const refusal = refusedAtMost?.code === "RATE_LIMITED" ? allowanceRefusal(allowances, { ...bounded, ...(await lastMinute(tx, workspaceId, clock.now())) }, demand) : refusedAtMost;
  if (refusal) throw refusal;
  const documents = demand.real + (demand.xlsx ?? 0);
  if (documents > 0) addToCounter(tx, workspaceId, "documents", monthOf(at), documents);
  if (demand.test > 0) addToCounter(tx, workspaceId, "test_renders", dayOf(at), demand.test);
  if (demand.real > 0) countRenders(tx, workspaceId, false, at, demand.real);
  if (demand.test > 0) countRenders(tx, workspaceId, true, at, demand.test);
}
