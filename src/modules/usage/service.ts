/** usage/service: reading the daily usage record (spec 2.10) back over ranges of days; ledger/usage-days.ts writes it. */
import { ApiError } from "../../errors";
import { selectPage } from "../../http/paging";
import type { Clock } from "../../lib/clock";
import type { Reads } from "../../store/store";
import type { PlatformUsageItem, PlatformUsagePage, PlatformUsageQuery, UsageCounters, UsageExportRow, UsageQuery, UsageReport } from "./model";
import { dayOf } from "../../ledger/counters";
import { dayMs } from "../../ledger/usage-days";

/** spec 4.8 / 8.4: a range covers at most 366 days, both ends counted. */
export const MAX_RANGE_DAYS = 366;

const DAY_MS = 86_400_000;

/** UsageRange is a checked range of UTC days, both included. */
export interface UsageRange {
  from: string;
  to: string;
}

function badRange(path: "/from" | "/to", message: string): ApiError {
  return new ApiError("BAD_REQUEST", "The usage range is not valid.", { details: [{ path, message }] });
}

function parseDay(value: string, path: "/from" | "/to"): number {
  const ms = dayMs(value);
  if (ms === null) throw badRange(path, `must be a calendar day YYYY-MM-DD (got ${JSON.stringify(value)})`);
  return ms;
}

/**
 * resolveRange checks a `from`/`to` pair (spec 4.8) against `now`: each bound left out is that end of the current UTC
 * month, so both out is this month, `from` alone runs to this month's end and `to` alone starts at this month's start.
 */
export function resolveRange(query: { from?: string; to?: string }, now: Date): UsageRange {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const from = query.from ?? dayOf(new Date(Date.UTC(year, month, 1)));
  // Day 0 of the next month is the last day of this one.
  const to = query.to ?? dayOf(new Date(Date.UTC(year, month + 1, 0)));
  const fromMs = parseDay(from, "/from");
  const toMs = parseDay(to, "/to");
  if (fromMs > toMs) {
    // Point at the bound the caller sent: a defaulted one is not theirs to fix.
    if (query.to !== undefined) throw badRange("/to", `must not be before from (${from}${query.from === undefined ? ", the first day of the current month" : ""})`);
    throw badRange("/from", `must not be after to (${to}, the last day of the current month)`);
  }
  const days = (toMs - fromMs) / DAY_MS + 1;
  if (days > MAX_RANGE_DAYS) throw badRange("/to", `the range may cover at most ${MAX_RANGE_DAYS} days, both ends counted (${from} to ${to} is ${days})`);
  return { from, to };
}

interface CounterRow {
  renders_succeeded: number;
  renders_failed: number;
  renders_cancelled: number;
  pages: number;
  output_bytes: number;
}

const COUNTER_COLUMNS = "renders_succeeded, renders_failed, renders_cancelled, pages, output_bytes";
const COUNTER_SUMS =
  "SUM(renders_succeeded) AS renders_succeeded, SUM(renders_failed) AS renders_failed, SUM(renders_cancelled) AS renders_cancelled, SUM(pages) AS pages, SUM(output_bytes) AS output_bytes";

function countersOf(r: CounterRow): UsageCounters {
  return {
    rendersSucceeded: r.renders_succeeded,
    rendersFailed: r.renders_failed,
    rendersCancelled: r.renders_cancelled,
    pages: r.pages,
    outputBytes: r.output_bytes,
  };
}

/** usageReport answers a workspace's totals over a checked range and its days with usage, oldest first. */
export async function usageReport(store: Reads, workspaceId: string, range: UsageRange): Promise<UsageReport> {
  const rows = await store.all<CounterRow & { day: string }>(
    `SELECT day, ${COUNTER_COLUMNS} FROM usage_days WHERE workspace_id = $ws AND day >= $from AND day <= $to ORDER BY day`,
    { ws: workspaceId, from: range.from, to: range.to },
  );
  const days = rows.map((r) => ({ day: r.day, ...countersOf(r) }));
  const totals: UsageCounters = { rendersSucceeded: 0, rendersFailed: 0, rendersCancelled: 0, pages: 0, outputBytes: 0 };
  for (const d of days) for (const k of Object.keys(totals) as (keyof UsageCounters)[]) totals[k] += d[k];
  return { from: range.from, to: range.to, totals, days };
}

/** getUsage answers GET /v1/usage for a workspace: the range from the query (defaults at `clock`'s month) and its report. */
export async function getUsage(store: Reads, clock: Clock, workspaceId: string, query: UsageQuery): Promise<UsageReport> {
  return usageReport(store, workspaceId, resolveRange(query, clock.now()));
}

/** listPlatformUsage answers GET /v1/platform/usage: one page of the workspaces with usage in the range, newest
 * workspace first (the keyset every other list uses), each with its counters summed over the range. */
export async function listPlatformUsage(store: Reads, clock: Clock, query: PlatformUsageQuery): Promise<PlatformUsagePage> {
  const range = resolveRange(query, clock.now());
  // The join keeps only workspaces with a usage row in the range; the paging keyset is the workspace's own.
  const page = await selectPage<CounterRow & { id: string; name: string; slug: string; created_at: string }, PlatformUsageItem>(
    store,
    query,
    {
      select: `w.id, w.name, w.slug, w.created_at, u.*`,
      from: `workspaces w JOIN (SELECT workspace_id, ${COUNTER_SUMS} FROM usage_days WHERE day >= $from AND day <= $to GROUP BY workspace_id) u
             ON u.workspace_id = w.id`,
      where: [],
      params: { from: range.from, to: range.to },
      alias: "w",
    },
    (r) => ({ workspaceId: r.id, name: r.name, slug: r.slug, ...countersOf(r) }),
  );
  return { from: range.from, to: range.to, ...page };
}

/** exportUsage answers one row per workspace and day with usage in a checked range, by day then workspace id;
 * `workspaceId` keeps one workspace's rows. */
export async function exportUsage(store: Reads, range: UsageRange, workspaceId?: string): Promise<UsageExportRow[]> {
  const rows = await store.all<CounterRow & { day: string; workspace_id: string; slug: string }>(
    `SELECT u.day, u.workspace_id, w.slug, ${COUNTER_COLUMNS.split(", ").map((c) => `u.${c}`).join(", ")}
     FROM usage_days u JOIN workspaces w ON w.id = u.workspace_id
     WHERE u.day >= $from AND u.day <= $to ${workspaceId === undefined ? "" : "AND u.workspace_id = $ws"}
     ORDER BY u.day, u.workspace_id`,
    { from: range.from, to: range.to, ...(workspaceId === undefined ? {} : { ws: workspaceId }) },
  );
  return rows.map((r) => ({ day: r.day, workspaceId: r.workspace_id, workspaceSlug: r.slug, ...countersOf(r) }));
}
