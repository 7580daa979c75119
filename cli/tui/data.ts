/** tui/data: what the operator console shows, read from the store under DATA_DIR (works while serve is down) and from
 * the running server's /internal/state; loaded outside rendering, once a second, by the app's hook. */
import type { Clock } from "../../src/lib/clock";
import type { LiveState } from "../../src/modules/health/internal";
import type { ApiKey } from "../../src/modules/api-keys/model";
import { toApiKey, type KeyRow as StoredKey } from "../../src/modules/api-keys/service";
import type { AuditEvent } from "../../src/modules/audit/model";
import { toEvent, type AuditRow as StoredEvent } from "../../src/modules/audit/service";
import type { RenderRow as StoredRender } from "../../src/queue/queue";
import type { RenderWarning } from "../../src/queue/warnings";
import { RENDER_STATUSES, type RenderStatus } from "../../src/store/render-status";
import { usageCounters } from "../../src/modules/workspaces/counters";
import { listWorkspaces } from "../../src/modules/workspaces/service";
import type { PlatformWorkspace } from "../../src/modules/workspaces/model";
import type { Reads } from "../../src/store/store";

const MINUTE = 60_000;
// A delivery that failed for good counts as failing for an hour; one still retrying counts until it succeeds or fails.
const FAILED_RECENTLY_MS = 60 * MINUTE;
const FAILING = "((d.status = 'pending' AND d.attempts > 0) OR (d.status = 'failed' AND d.last_attempt_at > $since))";
// The Audit tab shows the newest events of every workspace; the Keys tab every key.
const AUDIT_ROWS = 200;

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
  recentFailures: { id: string; workspace: string; code: string; message: string; finishedAt: string }[];
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
  errorMessage: string | null;
  /** A succeeded render's PDF, for its thumbnail (tui/thumbnail.tsx). */
  outputSha256: string | null;
  pages: number | null;
  bytes: number | null;
}

/** RenderDetail is one render as its detail view shows it: the row, its timeline and its deliveries. */
export interface RenderDetail extends RenderRow {
  filename: string;
  source: string;
  templateId: string | null;
  requestId: string | null;
  /** The timeline: queued (created), claimed (a worker took it), printed (Chromium's PDF ready), stored (PDF and final
   * state written: the end), delivered (the last webhook or destination delivery that succeeded). */
  claimedAt: string | null;
  printedAt: string | null;
  finishedAt: string | null;
  deliveredAt: string | null;
  warnings: RenderWarning[];
  deliveries: { kind: "webhook" | "destination"; target: string; status: string; attempts: number; lastError: string | null }[];
}

export interface KeyRow extends ApiKey {
  workspaceId: string;
  workspace: string;
}

export interface AuditRow extends AuditEvent {
  workspace: string;
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
  keys: KeyRow[];
  audit: AuditRow[];
}

/** percentiles answers the nearest-rank p50 and p95 of `values`. */
export function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { p50: null, p95: null };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
  return { p50: rank(0.5), p95: rank(0.95) };
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
    store.all<{ id: string; slug: string; error_code: string; error_message: string | null; finished_at: string }>(
      `SELECT r.id, w.slug, r.error_code, r.error_message, r.finished_at FROM renders r JOIN workspaces w ON w.id = r.workspace_id
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
  const recentFailures = failures.map((r) => ({ id: r.id, workspace: r.slug, code: r.error_code, message: r.error_message ?? "", finishedAt: r.finished_at }));
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
  const rows = await store.all<StoredRender & { slug: string }>(
    `SELECT r.id, r.workspace_id, w.slug, r.status, r.test, r.created_at, r.error_code, r.error_message, r.output_sha256, r.pages, r.bytes FROM renders r JOIN workspaces w ON w.id = r.workspace_id
     WHERE ${where.join(" AND ")} ORDER BY r.created_at DESC, r.id DESC LIMIT 100`,
    params,
  );
  return rows.map(renderRow);
}

type RowColumns = "id" | "workspace_id" | "status" | "test" | "created_at" | "error_code" | "error_message" | "output_sha256" | "pages" | "bytes";

function renderRow(r: Pick<StoredRender, RowColumns> & { slug: string }): RenderRow {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    workspace: r.slug,
    status: r.status,
    test: r.test === 1,
    createdAt: r.created_at,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    outputSha256: r.status === "succeeded" ? r.output_sha256 : null,
    pages: r.pages,
    bytes: r.bytes,
  };
}

/** loadRender reads one render with its timeline and deliveries, or null once it is gone (retention). */
export async function loadRender(store: Reads, renderId: string): Promise<RenderDetail | null> {
  const r = await store.get<StoredRender & { slug: string; source: string; printed_at: string | null; request_id: string | null }>(
    `SELECT r.*, w.slug FROM renders r JOIN workspaces w ON w.id = r.workspace_id WHERE r.id = $id`,
    { id: renderId },
  );
  if (!r) return null;
  const [webhooks, destinations] = await Promise.all([
    store.all<{ url: string; status: string; attempts: number; last_error: string | null; last_attempt_at: string | null }>(
      `SELECT e.url, d.status, d.attempts, d.last_error, d.last_attempt_at FROM webhook_deliveries d
         JOIN webhook_events v ON v.id = d.event_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE v.render_id = $id ORDER BY d.created_at, d.id`,
      { id: renderId },
    ),
    store.all<{ name: string; status: string; attempts: number; last_error: string | null; delivered_at: string | null }>(
      `SELECT s.name, d.status, d.attempts, d.last_error, d.delivered_at FROM destination_deliveries d JOIN destinations s ON s.id = d.destination_id
       WHERE d.render_id = $id ORDER BY d.position`,
      { id: renderId },
    ),
  ]);
  const delivered = [
    ...webhooks.filter((d) => d.status === "succeeded").map((d) => d.last_attempt_at),
    ...destinations.filter((d) => d.status === "delivered").map((d) => d.delivered_at),
  ].filter((at): at is string => at !== null);
  return {
    ...renderRow(r),
    filename: r.filename,
    source: r.source,
    templateId: r.template_id,
    requestId: r.request_id,
    claimedAt: r.started_at,
    printedAt: r.printed_at,
    finishedAt: r.finished_at,
    deliveredAt: delivered.sort().at(-1) ?? null,
    warnings: r.warnings ? (JSON.parse(r.warnings) as RenderWarning[]) : [],
    deliveries: [
      ...webhooks.map((d) => ({ kind: "webhook" as const, target: d.url, status: d.status, attempts: d.attempts, lastError: d.last_error })),
      ...destinations.map((d) => ({ kind: "destination" as const, target: d.name, status: d.status, attempts: d.attempts, lastError: d.last_error })),
    ],
  };
}

async function keys(store: Reads): Promise<KeyRow[]> {
  const rows = await store.all<StoredKey & { slug: string }>("SELECT k.*, w.slug FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id ORDER BY w.slug, k.created_at DESC, k.id DESC");
  return rows.map((r) => ({ ...toApiKey(r), workspaceId: r.workspace_id, workspace: r.slug }));
}

async function audit(store: Reads): Promise<AuditRow[]> {
  const rows = await store.all<StoredEvent & { slug: string }>(
    `SELECT a.*, w.slug FROM audit_events a JOIN workspaces w ON w.id = a.workspace_id ORDER BY a.created_at DESC, a.id DESC LIMIT ${AUDIT_ROWS}`,
  );
  return rows.map((r) => ({ ...toEvent(r), workspace: r.slug }));
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

/** loadSnapshot reads everything the screens show from the store at one instant of `clock`, with `live` (the running
 * server's state, live.ts) beside it. */
export async function loadSnapshot(store: Reads, clock: Clock, live: LiveState | null, filter: RenderFilter): Promise<Snapshot> {
  const at = clock.now();
  const [overviewNow, workspaceRows, renderRows, endpointRows, keyRows, auditRows] = await Promise.all([
    overview(store, at),
    workspaces(store, clock),
    renders(store, filter),
    endpoints(store, at),
    keys(store),
    audit(store),
  ]);
  return { at, live, overview: overviewNow, workspaces: workspaceRows, renders: renderRows, endpoints: endpointRows, keys: keyRows, audit: auditRows };
}
