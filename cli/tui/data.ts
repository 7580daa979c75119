/** tui/data: what the operator console shows, read from the store under DATA_DIR (works while serve is down) and from
 * the running server's /internal/state; loaded outside rendering, once a second, by the app's hook. */
import { Value } from "@sinclair/typebox/value";
import type { Clock } from "../../src/lib/clock";
import { LiveState } from "../../src/modules/health/internal";
import { RENDER_STATUSES, type RenderStatus } from "../../src/store/render-status";
import { usageCounters } from "../../src/modules/workspaces/counters";
import { listWorkspaces } from "../../src/modules/workspaces/service";
import type { PlatformWorkspace } from "../../src/modules/workspaces/model";
import type { Reads } from "../../src/store/store";

const MINUTE = 60_000;
// A delivery that failed for good counts as failing for an hour; one still retrying counts until it succeeds or fails.
const FAILED_RECENTLY_MS = 60 * MINUTE;
const FAILING = "((d.status = 'pending' AND d.attempts > 0) OR (d.status = 'failed' AND d.last_attempt_at > $since))";
const LIVE_TIMEOUT_MS = 500;

export interface Percentiles {
  p50: number | null;
  p95: number | null;
}

export interface Overview {
  /** Renders finished in each of the last 60 minutes, oldest first. */
  perMinute: number[];
  queue: Record<RenderStatus, number>;
  /** Seconds, over renders that finished in the last 5 minutes. */
  queueWait: Percentiles;
  renderTime: Percentiles;
  webhookBacklog: number;
  failingEndpoints: number;
  recentFailures: { id: string; workspace: string; code: string; finishedAt: string }[];
}

export interface WorkspaceRow extends PlatformWorkspace {
  documentsThisMonth: number;
  storageBytes: number;
  activeRenders: number;
}

export interface RenderRow {
  id: string;
  workspaceId: string;
  workspace: string;
  status: RenderStatus;
  test: boolean;
  createdAt: string;
  errorCode: string | null;
  /** A succeeded render's PDF, for its thumbnail (tui/thumbnail.tsx). */
  outputSha256: string | null;
  pages: number | null;
  bytes: number | null;
}

export interface EndpointRow {
  id: string;
  workspace: string;
  url: string;
  enabled: boolean;
  pending: number;
  failed: number;
  lastError: string | null;
  nextAttemptAt: string | null;
}

export interface RenderFilter {
  workspace?: string;
  status?: RenderStatus;
}

export interface Snapshot {
  at: Date;
  /** The running server's live state, or null when its internal port does not answer ("serve is not running"). */
  live: LiveState | null;
  overview: Overview;
  workspaces: WorkspaceRow[];
  renders: RenderRow[];
  endpoints: EndpointRow[];
}

/** percentiles answers the nearest-rank p50 and p95 of `values`. */
export function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { p50: null, p95: null };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
  return { p50: rank(0.5), p95: rank(0.95) };
}

/** fetchLive asks the internal port for /internal/state; null when nothing (or not renderd) answers in time. */
export async function fetchLive(internalUrl: string): Promise<LiveState | null> {
  try {
    const res = await fetch(`${internalUrl}/internal/state`, { signal: AbortSignal.timeout(LIVE_TIMEOUT_MS) });
    if (!res.ok) return null;
    const body: unknown = await res.json();
    return Value.Check(LiveState, body) ? body : null;
  } catch {
    return null;
  }
}

async function overview(store: Reads, now: Date): Promise<Overview> {
  const hourAgo = new Date(now.getTime() - 60 * MINUTE);
  const perMinute = new Array<number>(60).fill(0);
  const [finished, statuses, recent, webhooks, failures] = await Promise.all([
    store.all<{ finished_at: string }>("SELECT finished_at FROM renders WHERE finished_at > $since AND finished_at <= $now", { since: hourAgo.toISOString(), now: now.toISOString() }),
    store.all<{ status: RenderStatus; n: number }>("SELECT status, COUNT(*) AS n FROM renders WHERE status IN ('queued', 'processing') OR finished_at > $since GROUP BY status", {
      since: hourAgo.toISOString(),
    }),
    store.all<{ created_at: string; started_at: string; finished_at: string }>(
      "SELECT created_at, started_at, finished_at FROM renders WHERE started_at IS NOT NULL AND finished_at > $since",
      { since: new Date(now.getTime() - 5 * MINUTE).toISOString() },
    ),
    store.get<{ backlog: number; failing: number }>(
      `SELECT COUNT(*) FILTER (WHERE d.status = 'pending') AS backlog, COUNT(DISTINCT d.endpoint_id) FILTER (WHERE ${FAILING}) AS failing
       FROM webhook_deliveries d`,
      { since: new Date(now.getTime() - FAILED_RECENTLY_MS).toISOString() },
    ),
    store.all<{ id: string; slug: string; error_code: string; finished_at: string }>(
      `SELECT r.id, w.slug, r.error_code, r.finished_at FROM renders r JOIN workspaces w ON w.id = r.workspace_id
       WHERE r.status = 'failed' ORDER BY r.finished_at DESC LIMIT 5`,
    ),
  ]);
  for (const r of finished) {
    const index = Math.floor((Date.parse(r.finished_at) - hourAgo.getTime()) / MINUTE);
    perMinute[Math.min(59, index)]!++;
  }
  const queue = Object.fromEntries(RENDER_STATUSES.map((s) => [s, 0])) as Record<RenderStatus, number>;
  for (const r of statuses) queue[r.status] = r.n;
  const seconds = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 1000;
  const recentFailures = failures.map((r) => ({ id: r.id, workspace: r.slug, code: r.error_code, finishedAt: r.finished_at }));
  return {
    perMinute,
    queue,
    queueWait: percentiles(recent.map((r) => seconds(r.created_at, r.started_at))),
    renderTime: percentiles(recent.map((r) => seconds(r.started_at, r.finished_at))),
    webhookBacklog: webhooks!.backlog,
    failingEndpoints: webhooks!.failing,
    recentFailures,
  };
}

async function workspaces(store: Reads, clock: Clock): Promise<WorkspaceRow[]> {
  const counts = await store.all<{ workspace_id: string; n: number }>("SELECT workspace_id, COUNT(*) AS n FROM renders WHERE status IN ('queued', 'processing') GROUP BY workspace_id");
  const active = new Map(counts.map((r) => [r.workspace_id, r.n]));
  const rows: WorkspaceRow[] = [];
  let cursor: string | undefined;
  do {
    const page = await listWorkspaces(store, { limit: "100", cursor });
    const usages = await Promise.all(page.items.map((ws) => usageCounters(store, clock, ws.id)));
    for (const [i, ws] of page.items.entries()) {
      const usage = usages[i]!;
      rows.push({ ...ws, documentsThisMonth: usage.documentsThisMonth, storageBytes: usage.storageBytes, activeRenders: active.get(ws.id) ?? 0 });
    }
    cursor = page.nextCursor;
  } while (cursor);
  return rows.sort((a, b) => a.slug.localeCompare(b.slug));
}

async function renders(store: Reads, filter: RenderFilter): Promise<RenderRow[]> {
  const where = ["1 = 1"];
  const params: Record<string, string> = {};
  if (filter.workspace) {
    where.push("w.slug = $ws");
    params.ws = filter.workspace;
  }
  if (filter.status) {
    where.push("r.status = $status");
    params.status = filter.status;
  }
  const rows = await store.all<{ id: string; workspace_id: string; slug: string; status: RenderStatus; test: number; created_at: string; error_code: string | null; output_sha256: string | null; pages: number | null; bytes: number | null }>(
    `SELECT r.id, r.workspace_id, w.slug, r.status, r.test, r.created_at, r.error_code, r.output_sha256, r.pages, r.bytes FROM renders r JOIN workspaces w ON w.id = r.workspace_id
     WHERE ${where.join(" AND ")} ORDER BY r.created_at DESC, r.id DESC LIMIT 100`,
    params,
  );
  return rows.map((r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    workspace: r.slug,
    status: r.status,
    test: r.test === 1,
    createdAt: r.created_at,
    errorCode: r.error_code,
    outputSha256: r.status === "succeeded" ? r.output_sha256 : null,
    pages: r.pages,
    bytes: r.bytes,
  }));
}

async function endpoints(store: Reads, now: Date): Promise<EndpointRow[]> {
  const rows = await store.all<{ id: string; slug: string; url: string; enabled: number; pending: number; failed: number; last_error: string | null; next_attempt_at: string | null }>(
    `SELECT e.id, w.slug, e.url, e.enabled,
            COUNT(*) FILTER (WHERE d.status = 'pending') AS pending,
            COUNT(*) FILTER (WHERE d.status = 'failed') AS failed,
            (SELECT last_error FROM webhook_deliveries x WHERE x.endpoint_id = e.id AND x.last_error IS NOT NULL ORDER BY x.last_attempt_at DESC NULLS LAST LIMIT 1) AS last_error,
            MIN(d.next_attempt_at) FILTER (WHERE d.status = 'pending') AS next_attempt_at
     FROM webhook_endpoints e JOIN workspaces w ON w.id = e.workspace_id JOIN webhook_deliveries d ON d.endpoint_id = e.id
     WHERE ${FAILING}
     GROUP BY e.id, w.slug ORDER BY next_attempt_at NULLS LAST, w.slug`,
    { since: new Date(now.getTime() - FAILED_RECENTLY_MS).toISOString() },
  );
  return rows.map((r) => ({ id: r.id, workspace: r.slug, url: r.url, enabled: r.enabled === 1, pending: r.pending, failed: r.failed, lastError: r.last_error, nextAttemptAt: r.next_attempt_at }));
}

/** loadSnapshot reads everything the screens show, at one instant of `clock`. */
export async function loadSnapshot(store: Reads, clock: Clock, internalUrl: string, filter: RenderFilter): Promise<Snapshot> {
  const at = clock.now();
  const [live, overviewNow, workspaceRows, renderRows, endpointRows] = await Promise.all([
    fetchLive(internalUrl),
    overview(store, at),
    workspaces(store, clock),
    renders(store, filter),
    endpoints(store, at),
  ]);
  return { at, live, overview: overviewNow, workspaces: workspaceRows, renders: renderRows, endpoints: endpointRows };
}
