/**
 * renders/service: creating renders (one, a batch, a template preview, a report's PDF), reading, listing and
 * cancelling them, and their signed result addresses. Everything about a request is checked and its print job made
 * before anything is written, with reads that need no lock (plan.ts); then the allowances are charged and the rows
 * queued in one short transaction (createRender).
 */
import type { Config } from "../../config";
import { ApiError } from "../../errors";
import { selectPage } from "../../http/paging";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { mergePdfOptions } from "../../render/pdf-options";
import type { RenderWarning } from "../../queue/warnings";
import type { RenderWorker } from "../../render/worker";
import type { FileStore } from "../../store/files";
import { templateFor, withAssetBytes, type PlanningAssets } from "./asset-bytes";
import type { Reads, Store, Tx, TxOptions } from "../../store/store";
import { addressUrl, checkAddress, DOWNLOAD_ADDRESS_MS, signToken } from "../assets/signing";
import type { Download } from "../assets/service";
import { queueDeliveries, renderDeliveries } from "../destinations/deliveries";
import { assetFinder, planPreview, templatePlan, type Planned } from "./plan";
import { chargeAllowances } from "./allowances";
import { RENDER_COLUMNS, type Queue, type RenderRow } from "../../queue/queue";
import { isFinalStatus } from "../../store/render-status";
import { OUTPUT_DPI, type ImageOutput } from "../../render/image-output";
import { pageAddress } from "./page-address";
import { withPdfOptions } from "./pdf";
import type { PreviewRequest, Render, RenderListQuery, RenderMetadata, RenderRecord } from "./model";

/** What the render operations need. */
export interface RenderDeps {
  store: Store;
  clock: Clock;
  config: Config;
  files: FileStore;
  /** The queue's runner; `renderd tui` passes one that prints nothing (the serving process's worker does). */
  worker: RenderQueue;
  /** The render queue renders are added to and cancelled in. */
  queue: Queue;
  /** The assets a request's jobs name, read before planning (withAssetBytes, asset-bytes.ts). */
  assets?: PlanningAssets;
}

/** RenderQueue is what the render services need of the worker. */
export type RenderQueue = Pick<RenderWorker, "cancel" | "ended" | "waitEnded" | "claimAccepted" | "printAhead" | "letGo">;


/** queue charges the allowances for every planned render and inserts them all, or nothing, in `tx`; answers the rows
 * as inserted (their values are known: nothing is read back). PDF operations are queued here too, counted as real
 * renders. */
export async function queue(deps: RenderDeps, tx: Tx, workspaceId: string, plans: Planned[], batch?: { id: string; merge: boolean }): Promise<RenderRow[]> {
  const { clock } = deps;
  const test = plans.filter((p) => p.test).length;
  // The renders are counted in the minute of the time they are created at.
  const at = clock.now();
  await chargeAllowances(tx, clock, workspaceId, { real: plans.length - test, test }, at);
  const now = at.toISOString();
  const rows = plans.map((plan): RenderRow => ({
    // An operation's id says what it is (pdo_…) in logs and in the webhooks that announce its end.
    id: newId(plan.source === "operation" ? "pdo" : "rnd"),
    workspace_id: workspaceId,
    status: "queued",
    test: plan.test ? 1 : 0,
    template_id: plan.templateId ?? null,
    template_version: plan.templateVersion ?? null,
    batch_id: batch?.id ?? null,
    filename: plan.filename,
    metadata: JSON.stringify(plan.metadata),
    output_sha256: null,
    pages: null,
    bytes: null,
    error_code: null,
    error_message: null,
    warnings: null,
    details: plan.details ?? null,
    created_at: now,
    started_at: null,
    finished_at: null,
  }));
  // The inserts go out together: one round trip on PostgreSQL whatever the batch's size.
  await Promise.all(
    plans.flatMap((plan, i) => {
      const row = rows[i]!;
      // An operation's row is kind `operation`; its source column keeps a value migration 0004's CHECK allows.
      const source = plan.source === "operation" ? "document" : plan.source;
      const render = { id: row.id, workspaceId, test: plan.test, source, templateId: row.template_id, templateVersion: row.template_version };
      const inserted = deps.queue.enqueue(tx, {
        ...render,
        kind: plan.source === "operation" ? "operation" : "render",
        batchId: row.batch_id,
        batchMerge: batch?.merge ?? false,
        filename: plan.filename,
        metadata: row.metadata,
        job: JSON.stringify(plan.job),
        details: plan.details ?? null,
        createdAt: now,
      });
      if (!plan.deliveries?.length) return [inserted];
      return [inserted, queueDeliveries(tx, now, plan.deliveries, plan.filename, { data: plan.data, metadata: plan.metadata, renderId: row.id })];
    }),
  );
  const aheads = new Map(plans.flatMap((plan, i) => (plan.ahead ? [[rows[i]!.id, plan.ahead] as const] : [])));
  await deps.worker.claimAccepted(tx, rows.map((row) => row.id), aheads);
  return rows;
}

/** renderRecordOf answers a row as the API shows it, without a result address (the workspace export's form). */
export function renderRecordOf(r: RenderRow): RenderRecord {
  const render: RenderRecord = {
    id: r.id,
    status: r.status,
    test: r.test === 1,
    filename: r.filename,
    metadata: JSON.parse(r.metadata) as RenderMetadata,
    createdAt: r.created_at,
  };
  if (r.template_id !== null) render.templateId = r.template_id;
  if (r.template_version !== null) render.templateVersion = r.template_version;
  if (r.batch_id !== null) render.batchId = r.batch_id;
  if (r.started_at !== null) render.startedAt = r.started_at;
  if (r.finished_at !== null) render.finishedAt = r.finished_at;
  if (r.status === "succeeded" && r.output_sha256 !== null) render.result = { pages: r.pages ?? 0, bytes: r.bytes ?? 0 };
  if (r.warnings !== null) render.warnings = JSON.parse(r.warnings) as RenderWarning[];
  if (r.status === "failed") render.error = { code: r.error_code ?? "RENDER_FAILED", message: r.error_message ?? "The render failed." };
  return render;
}

/** toRender answers a row as the API shows it; a succeeded render gets a fresh signed result address. A render's
 * deliveries are written with it, in the transaction that queues it (queue), so one known to have none is not asked;
 * `db` is that transaction while it is open. */
async function toRender(deps: RenderDeps, r: RenderRow, hasDeliveries = true, db: Reads = deps.store): Promise<Render> {
  const { result, ...record } = renderRecordOf(r);
  const deliveries = hasDeliveries ? await renderDeliveries(db, r.id) : [];
  const render: Render = deliveries.length ? { ...record, deliveries } : record;
  if (!result) return render;
  const expiresAt = new Date(deps.clock.now().getTime() + DOWNLOAD_ADDRESS_MS);
  const token = signToken(deps.config.secretKey, "result", r.id, expiresAt);
  const { publicUrl } = deps.config;
  const output = r.details ? (JSON.parse(r.details) as { output?: ImageOutput & { dpi: number } }).output : undefined;
  const images = output && { images: (output.pages ?? Array.from({ length: result.pages }, (_, i) => i + 1)).map((page) => ({ page, url: pageAddress(publicUrl, r.id, token, page, output) })) };
  return {
    ...render,
    result: { downloadUrl: addressUrl(publicUrl, "result", r.id, token), expiresAt: expiresAt.toISOString(), pageImageUrl: pageAddress(publicUrl, r.id, token), ...images, ...result },
  };
}

async function renderRow(deps: RenderDeps, workspaceId: string, id: string): Promise<RenderRow> {
  const r = await deps.store.get<RenderRow>(`SELECT ${RENDER_COLUMNS} FROM renders WHERE id = $id AND workspace_id = $ws AND kind = 'render'`, { id, ws: workspaceId });
  // DESIGN.md 2: another workspace's render is 404 too.
  if (!r) throw new ApiError("NOT_FOUND", `Render ${id} was not found.`);
  return r;
}

/** createRender queues a planned render in `tx`, its allowances charged. */
export async function createRender(deps: RenderDeps, tx: Tx, workspaceId: string, plan: Planned): Promise<Render> {
  const [row] = await queue(deps, tx, workspaceId, [plan]);
  return toRender(deps, row!, Boolean(plan.deliveries?.length), tx);
}

/** createBatch counts a batch's planned items against the allowances together and queues them in `tx`: all, or none
 * (DESIGN.md 4); with `merge` the batch offers one merged PDF once all have succeeded (merge.ts). */
export async function createBatch(deps: RenderDeps, tx: Tx, workspaceId: string, plans: Planned[], merge = false): Promise<{ batchId: string; items: Render[] }> {
  const batchId = newId("bat");
  const rows = await queue(deps, tx, workspaceId, plans, { id: batchId, merge });
  return { batchId, items: await Promise.all(rows.map((r, i) => toRender(deps, r, Boolean(plans[i]!.deliveries?.length), tx))) };
}

/** createPreview queues a template preview: the saved draft, a version, or an unsaved draft given in the request. A
 * preview is a test render, marked TEST, never a document of the month (spec 2.2: while documentsPerMonth is set,
 * previews are test renders; DESIGN.md 4: a render of a draft, and a preview, are test renders). */
export async function createPreview(deps: RenderDeps, workspaceId: string, templateId: string, request: PreviewRequest): Promise<Render> {
  const { pdf, plan, find } = await planPreview(deps, workspaceId, templateId, request);
  const filename = `${templateId}-preview.pdf`;
  const job = withPdfOptions(plan.job, mergePdfOptions(pdf, request.pdf), { find, test: true, filename, at: "" });
  const [row] = await deps.store.tx((tx) => queue(deps, tx, workspaceId, [{ ...plan, job, source: "preview", test: true, metadata: {}, filename }]));
  return toRender(deps, row!);
}

/** previewHtml answers the HTML a template preview would print (no render is created, nothing is counted). */
export async function previewHtml(deps: RenderDeps, workspaceId: string, templateId: string, request: PreviewRequest): Promise<string> {
  return (await planPreview(deps, workspaceId, templateId, request)).plan.job.html;
}

/** createReportRender queues the PDF of a report: a real render of the template's newest (or given) version. */
export async function createReportRender(
  deps: RenderDeps,
  workspaceId: string,
  report: { templateId: string; version?: number; data?: unknown; filename?: string },
): Promise<Render> {
  const which = report.version ?? "latest";
  const planned = await withAssetBytes(deps, workspaceId, [{ templateId: report.templateId, which }], async (d) => {
    const { pdf, ...plan } = await templatePlan(d, workspaceId, await templateFor(d, workspaceId, { templateId: report.templateId, which }), report.data, "");
    const filename = report.filename ?? `${report.templateId}.pdf`;
    const job = withPdfOptions(plan.job, pdf ?? {}, { find: assetFinder(d), test: false, filename, at: "" });
    return { ...plan, job, source: "report" as const, test: false, metadata: {}, filename };
  });
  const [row] = await deps.store.tx((tx) => queue(deps, tx, workspaceId, [planned]));
  return toRender(deps, row!);
}

/** getRender answers one render of the workspace. */
export async function getRender(deps: RenderDeps, workspaceId: string, id: string): Promise<Render> {
  return toRender(deps, await renderRow(deps, workspaceId, id));
}

/** waitForRender waits up to `seconds` for a render to reach a final state and answers it as it is then. A render
 * that failed is answered as its error (with its renderId), the way a synchronous call would fail. `accepted` is how
 * the render's acceptance was committed: one that did not wait for the disk is made durable before the answer. */
export async function waitForRender(deps: RenderDeps, workspaceId: string, render: Render, seconds: number, accepted: TxOptions = {}): Promise<Render> {
  const waits = seconds > 0 && !isFinalStatus(render.status);
  const ended = async () => isFinalStatus((await renderRow(deps, workspaceId, render.id)).status);
  // The worker hands over the row its final transaction wrote: a durable commit after the acceptance's, which made the
  // acceptance durable as well. A render ended otherwise (cancelled) or still going at the end of the wait is read back.
  const row = waits ? await deps.worker.waitEnded(render.id, seconds * 1000, ended) : undefined;
  if (row) return finalOrThrow(await toRender(deps, row, render.deliveries !== undefined));
  const now = waits ? await getRender(deps, workspaceId, render.id) : render;
  // Read back ended, it was ended by another transaction — another process's, or a cancel — and every final state is
  // committed durably (and on PostgreSQL seen only once flushed), after the acceptance: that made the acceptance
  // durable too. Still on its way, it is acknowledged by this answer, so its acceptance must reach the disk first: on a
  // shared store that waits for the server's WAL writer, up to wal_writer_delay (bench/cluster.ts counted 5.5 polls a
  // render at K = 4 for renders ended elsewhere, before this).
  if (accepted.durable === false && !(waits && isFinal(now))) await deps.store.sync();
  return finalOrThrow(now);
}

function finalOrThrow(render: Render): Render {
  if (render.status === "failed" && render.error)
    throw new ApiError(render.error.code as ApiError["code"], render.error.message, { renderId: render.id });
  return render;
}

/** isFinal tells whether a render has ended. */
export function isFinal(render: Render): boolean {
  return isFinalStatus(render.status);
}

/** listRenders answers one page of the workspace's renders, newest first, filtered by status, test and template. */
export async function listRenders(deps: RenderDeps, workspaceId: string, query: RenderListQuery): Promise<{ items: Render[]; nextCursor?: string }> {
  // PDF operations share the queue and the table; they are listed at /v1/pdf-operations.
  const where = ["workspace_id = $ws", "kind = 'render'"];
  const params: Record<string, string | number> = { ws: workspaceId };
  if (query.status) {
    where.push("status = $status");
    params.status = query.status;
  }
  if (query.test) {
    where.push("test = $test");
    params.test = query.test === "true" ? 1 : 0;
  }
  if (query.templateId) {
    where.push("template_id = $templateId");
    params.templateId = query.templateId;
  }
  return selectPage<RenderRow, Render>(deps.store, query, { from: "renders", where, params }, (r) => toRender(deps, r));
}

/** listRenderRecords answers one page of the workspace's renders, newest first, without result addresses; it reads
 * only the columns a render shows, never the stored print job. */
export async function listRenderRecords(store: Reads, workspaceId: string, query: { limit?: string; cursor?: string }): Promise<{ items: RenderRecord[]; nextCursor?: string }> {
  return selectPage<RenderRow, RenderRecord>(store, query, { select: RENDER_COLUMNS, from: "renders", where: ["workspace_id = $ws"], params: { ws: workspaceId } }, renderRecordOf);
}

/** cancelRender cancels a render that is queued or processing (409 CONFLICT once it has ended): the final state, its
 * usage and its event are written at once, and a render being printed is stopped. */
export async function cancelRender(deps: RenderDeps, workspaceId: string, id: string): Promise<Render> {
  await renderRow(deps, workspaceId, id);
  if (!(await deps.queue.cancel(id)))
    throw new ApiError("CONFLICT", `Render ${id} has already ${(await renderRow(deps, workspaceId, id)).status}; only a queued or processing render can be cancelled.`);
  deps.worker.cancel(id);
  deps.worker.ended(id);
  return getRender(deps, workspaceId, id);
}

/** openResult checks a result address and answers the render's PDF; 403 for a bad or expired address, 404 once the
 * render is gone (retention) or when it has no PDF. */
export async function openResult(deps: RenderDeps, id: string, token: unknown): Promise<Download> {
  checkAddress(deps.config.secretKey, "result", id, token, deps.clock.now());
  return resultOf(deps, id);
}

/** resultOf answers the PDF of a succeeded render (404 when it has none); callers have checked who may read it. */
export async function resultOf(deps: RenderDeps, id: string): Promise<Download> {
  const r = await deps.store.get<{ filename: string; output_sha256: string | null }>("SELECT filename, output_sha256 FROM renders WHERE id = $id AND status = 'succeeded'", { id });
  if (!r?.output_sha256) throw new ApiError("NOT_FOUND", `Render ${id} has no PDF.`);
  return { file: deps.files.open("outputs", r.output_sha256), sha256: r.output_sha256, mediaType: "application/pdf", filename: r.filename };
}
