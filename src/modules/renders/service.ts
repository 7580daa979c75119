/**
 * renders/service: creating renders (one, a batch, a template preview, a report's PDF), reading, listing and
 * cancelling them, and their signed result addresses. Everything about a request is checked and its print job made
 * before anything is written; then the allowances are charged and the rows queued in one transaction.
 */
import type { Config } from "../../config";
import { ApiError } from "../../errors";
import { firstProblems } from "../../render/compile/node-check";
import { selectPage } from "../../http/paging";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { validateData } from "../../render/compile/data";
import type { SignatureSettings } from "../../pdf/sign";
import { documentJob, htmlJob, templateJob, type FindAsset, type PrintJob } from "../../render/job";
import type { OperationJob } from "../../render/operation";
import { mergePdfOptions } from "../../render/pdf-options";
import type { RenderWarning } from "../../render/warnings";
import type { RenderWorker } from "../../render/worker";
import { uploadedAsset } from "../../store/assets";
import type { FileStore } from "../../store/files";
import { AssetBytesNeeded, type AssetBytes, type TemplateUse } from "./asset-bytes";
import type { Store, TxOptions } from "../../store/store";
import { addressUrl, checkAddress, DOWNLOAD_ADDRESS_MS, signToken } from "../assets/signing";
import type { Download } from "../assets/service";
import { assertCertificateUsable } from "../certificates/service";
import { checkTemplateAssets, templateForRender } from "../templates/service";
import { deliveryTargets, queueDeliveries, renderDeliveries, type DeliveryTarget } from "../destinations/deliveries";
import { getAllowances } from "../workspaces/service";
import { chargeAllowances } from "./allowances";
import { RENDER_COLUMNS, type Queue, type RenderRow } from "../../queue/queue";
import { isFinalStatus } from "../../store/render-status";
import { OUTPUT_DPI, type ImageOutput } from "../../render/image-output";
import { pageAddress } from "./page-address";
import { withPdfOptions } from "./pdf";
import { documentNodes, type PreviewRequest, type Render, type RenderListQuery, type RenderMetadata, type RenderRecord, type RenderRequest } from "./model";

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
  /** The bytes of the assets a request's jobs embed, read before planning (withAssetBytes, asset-bytes.ts). */
  assetBytes?: AssetBytes;
}

/** RenderQueue is what the render services need of the worker. */
export type RenderQueue = Pick<RenderWorker, "kick" | "cancel" | "ended" | "waitEnded">;

type Source = "template" | "document" | "html" | "preview" | "report" | "operation";

/** Planned is a checked request: the row to insert, its job made. */
export interface Planned {
  source: Source;
  test: boolean;
  templateId?: string;
  templateVersion?: number | null;
  filename: string;
  metadata: RenderMetadata;
  /** What the worker does: print, or run a PDF operation (issue 30) — a job of the same queue either way. */
  job: PrintJob | OperationJob;
  /** Where the file goes once the render succeeds, and the data its placeholders read (issue 14). */
  deliveries?: DeliveryTarget[];
  data?: unknown;
  /** The result's facts known now (RenderRow.details): the image output asked for. */
  details?: string;
}

function badRequest(path: string, message: string): ApiError {
  return new ApiError("BAD_REQUEST", "The request body is not valid.", { details: [{ path, message }] });
}

/** assetFinder answers a workspace's uploaded assets by id, reading their bytes only when a job needs them. */
function assetFinder(deps: RenderDeps, workspaceId: string): FindAsset {
  return (assetId) => {
    const asset = uploadedAsset(deps.store, workspaceId, assetId);
    if (!asset) return null;
    const bytes = () => {
      const read = deps.assetBytes?.get(asset.sha256);
      if (!read) throw new AssetBytesNeeded(assetId, asset.sha256);
      return read;
    };
    return { kind: asset.kind, filename: asset.filename, mediaType: asset.mediaType, bytes };
  };
}

/** templatePlan checks that the template's assets are still there (ASSET_INVALID: they may have been deleted since it
 * was saved) and the data against its schema (DATA_INVALID, a pointer per problem), then renders it. Without data it
 * renders the template's sampleData when `sample` is set (a preview), else `{}`. */
async function templatePlan(deps: RenderDeps, workspaceId: string, templateId: string, which: number | "draft" | "latest", given: unknown, at: string, sample = false) {
  const template = templateForRender(deps.store, workspaceId, templateId, which);
  const missing = checkTemplateAssets(deps.store, workspaceId, { ...template.source, assetIds: template.assetIds });
  if (missing.length) throw new ApiError("ASSET_INVALID", "An asset the template needs is no longer available.", { details: missing });
  const data = given ?? (sample ? template.sampleData : undefined) ?? {};
  if (template.source.dataSchema) {
    const problems = validateData(template.source.dataSchema, data, `${at}/data`);
    if (problems.length) throw new ApiError("DATA_INVALID", "The data does not match the template's data schema.", { details: problems });
  }
  return {
    templateId,
    templateVersion: template.version,
    pdf: template.pdf,
    signature: template.signature,
    destinationIds: template.destinationIds,
    job: await templateJob(template, data, assetFinder(deps, workspaceId)),
  };
}

// A client fixing a document needs the first problems, not thousands.
const MAX_DOCUMENT_PROBLEMS = 20;

/** planRequest checks one render request (its fields pointed at below `at`) and makes its job, with the signature it or
 * its template asks for (issue 13) once its certificate is found usable. */
async function planRequest(deps: RenderDeps, workspaceId: string, request: RenderRequest, at: string): Promise<Planned> {
  const { signature: templateSignature, destinationIds: templateDestinations, ...planned } = await planSource(deps, workspaceId, request, at);
  const signature = request.signature ?? templateSignature;
  if (signature) assertCertificateUsable(deps.store, deps.clock, workspaceId, signature.certificateId, `${at}/signature/certificateId`);
  const ids = request.destinationIds ?? templateDestinations ?? [];
  const deliveries = deliveryTargets(deps.store, workspaceId, ids, `${at}/destinationIds`, request.destinationIds ? "request" : "template");
  const output = request.output && { ...request.output, dpi: request.output.dpi ?? OUTPUT_DPI };
  const job = { ...planned.job, ...(signature && { signature }), ...(output && { output }) };
  return { ...planned, job, deliveries, data: request.data, ...(output && { details: JSON.stringify({ output }) }) };
}

/** templateUse answers the template and version a render request renders, or null for a document or HTML. */
export function templateUse(request: RenderRequest): TemplateUse | null {
  if (request.templateId === undefined) return null;
  // A draft is rendered only as a test render (DESIGN.md 4); without a version a real render uses the newest one.
  return { templateId: request.templateId, which: request.version ?? (request.test ? "draft" : "latest") };
}

async function planSource(deps: RenderDeps, workspaceId: string, request: RenderRequest, at: string): Promise<Planned & { signature?: SignatureSettings; destinationIds?: string[] }> {
  const given = (["templateId", "document", "html"] as const).filter((field) => request[field] !== undefined);
  if (given.length !== 1) throw badRequest(at, "give exactly one of templateId, document or html");
  if (request.templateId === undefined) {
    if (request.version !== undefined) throw badRequest(`${at}/version`, "is only allowed with templateId");
    if (request.data !== undefined) throw badRequest(`${at}/data`, "is only allowed with templateId");
  }
  const test = request.test ?? false;
  const common = { test, metadata: request.metadata ?? {} };
  const fail = request.failOnBlockedResources ? { failOnBlockedResources: true } : {};
  const find = assetFinder(deps, workspaceId);
  const use = templateUse(request);
  if (use) {
    const { pdf, ...plan } = await templatePlan(deps, workspaceId, use.templateId, use.which, request.data, at);
    const filename = request.filename ?? `${use.templateId}.pdf`;
    const job = withPdfOptions({ ...plan.job, ...fail }, mergePdfOptions(pdf, request.pdf), { find, test, filename, at });
    return { ...common, ...plan, job, source: "template", filename };
  }
  const filename = request.filename ?? "document.pdf";
  const options = { find, test, filename, at };
  if (request.document !== undefined) {
    const problems = firstProblems(documentNodes.problems(request.document, `${at}/document`), MAX_DOCUMENT_PROBLEMS);
    if (problems.length) throw new ApiError("BAD_REQUEST", "The document is not valid.", { details: problems });
    const job = await documentJob(request.document, find, `${at}/document`);
    return { ...common, source: "document", job: withPdfOptions({ ...job, ...fail }, request.pdf ?? {}, options), filename };
  }
  return { ...common, source: "html", job: withPdfOptions({ ...htmlJob(request.html!), ...fail }, request.pdf ?? {}, options), filename };
}

/** queue charges the allowances for every planned render and inserts them all, or nothing (one transaction, committed
 * with `options`); PDF operations are queued here too, counted as real renders. */
export function queue(deps: RenderDeps, workspaceId: string, plans: Planned[], batch?: { id: string; merge: boolean }, options: TxOptions = {}): RenderRow[] {
  const { store, clock } = deps;
  const rows = store.tx(() => {
    const test = plans.filter((p) => p.test).length;
    chargeAllowances(store, clock, workspaceId, { real: plans.length - test, test });
    const now = clock.now().toISOString();
    return plans.map((plan) => {
      // An operation's id says what it is (pdo_…) in logs and in the webhooks that announce its end.
      const id = newId(plan.source === "operation" ? "pdo" : "rnd");
      deps.queue.enqueue({
        id,
        workspaceId,
        test: plan.test,
        // An operation's row is kind `operation`; its source column keeps a value migration 0004's CHECK allows.
        source: plan.source === "operation" ? "document" : plan.source,
        kind: plan.source === "operation" ? "operation" : "render",
        templateId: plan.templateId ?? null,
        templateVersion: plan.templateVersion ?? null,
        batchId: batch?.id ?? null,
        batchMerge: batch?.merge ?? false,
        filename: plan.filename,
        metadata: JSON.stringify(plan.metadata),
        job: JSON.stringify(plan.job),
        details: plan.details ?? null,
        createdAt: now,
      });
      if (plan.deliveries?.length) queueDeliveries(store, now, plan.deliveries, plan.filename, { data: plan.data, metadata: plan.metadata, renderId: id });
      return store.get<RenderRow>(`SELECT ${RENDER_COLUMNS} FROM renders WHERE id = $id`, { id })!;
    });
  }, options);
  deps.worker.kick();
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
 * deliveries are written with it, in the transaction that queues it (queue), so one known to have none is not asked. */
function toRender(deps: RenderDeps, r: RenderRow, hasDeliveries = true): Render {
  const { result, ...record } = renderRecordOf(r);
  const deliveries = hasDeliveries ? renderDeliveries(deps.store, r.id) : [];
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

function renderRow(deps: RenderDeps, workspaceId: string, id: string): RenderRow {
  const r = deps.store.get<RenderRow>(`SELECT ${RENDER_COLUMNS} FROM renders WHERE id = $id AND workspace_id = $ws AND kind = 'render'`, { id, ws: workspaceId });
  // DESIGN.md 2: another workspace's render is 404 too.
  if (!r) throw new ApiError("NOT_FOUND", `Render ${id} was not found.`);
  return r;
}

/** planRender checks one render request (POST /v1/renders) and makes its job; queueRender queues it. They are apart
 * because making a job awaits (computed values, Tailwind) and queueing is one transaction with the idempotency key. */
export function planRender(deps: RenderDeps, workspaceId: string, request: RenderRequest): Promise<Planned> {
  return planRequest(deps, workspaceId, request, "");
}

/** queueRender queues a planned render, committed with `options`. */
export function queueRender(deps: RenderDeps, workspaceId: string, plan: Planned, options: TxOptions = {}): Render {
  return toRender(deps, queue(deps, workspaceId, [plan], undefined, options)[0]!, Boolean(plan.deliveries?.length));
}

/** planBatch checks every item of a batch (pointers `/items/<i>/…`) and makes their jobs. */
export async function planBatch(deps: RenderDeps, workspaceId: string, items: RenderRequest[]): Promise<Planned[]> {
  const plans: Planned[] = [];
  for (const [i, item] of items.entries()) plans.push(await planRequest(deps, workspaceId, item, `/items/${i}`));
  return plans;
}

/** queueBatch counts a planned batch against the allowances together: all are queued, or none (DESIGN.md 4); with
 * `merge` the batch offers one merged PDF once all have succeeded (merge.ts). */
export function queueBatch(deps: RenderDeps, workspaceId: string, plans: Planned[], merge = false): { batchId: string; items: Render[] } {
  const batchId = newId("bat");
  return { batchId, items: queue(deps, workspaceId, plans, { id: batchId, merge }).map((r, i) => toRender(deps, r, Boolean(plans[i]!.deliveries?.length))) };
}

/** createPreview queues a template preview: the draft unless a version is given; a test render while the workspace
 * has a documentsPerMonth allowance (spec 2.2), a real one otherwise. */
export async function createPreview(deps: RenderDeps, workspaceId: string, templateId: string, request: PreviewRequest): Promise<Render> {
  const test = getAllowances(deps.store, workspaceId).documentsPerMonth !== null;
  const { pdf, ...plan } = await templatePlan(deps, workspaceId, templateId, previewUse(templateId, request).which, request.data, "", true);
  const filename = `${templateId}-preview.pdf`;
  // A preview is marked TEST even where it counts as a real render: it is never the document itself.
  const job = withPdfOptions(plan.job, mergePdfOptions(pdf, request.pdf), { find: assetFinder(deps, workspaceId), test: true, filename, at: "" });
  return toRender(deps, queue(deps, workspaceId, [{ ...plan, job, source: "preview", test, metadata: {}, filename }])[0]!);
}

/** previewUse answers the version a preview renders: the draft unless the request names a version. */
export function previewUse(templateId: string, request: PreviewRequest): TemplateUse {
  return { templateId, which: request.version ?? "draft" };
}

/** usesOf answers the templates a set of render requests renders. */
export function usesOf(requests: readonly RenderRequest[]): TemplateUse[] {
  return requests.flatMap((r) => templateUse(r) ?? []);
}

/** previewHtml answers the HTML a template preview would print (no render is created, nothing is counted). */
export async function previewHtml(deps: RenderDeps, workspaceId: string, templateId: string, request: PreviewRequest): Promise<string> {
  return (await templatePlan(deps, workspaceId, templateId, previewUse(templateId, request).which, request.data, "", true)).job.html;
}

/** createReportRender queues the PDF of a report: a real render of the template's newest (or given) version. */
export async function createReportRender(
  deps: RenderDeps,
  workspaceId: string,
  report: { templateId: string; version?: number; data?: unknown; filename?: string },
): Promise<Render> {
  const { pdf, ...plan } = await templatePlan(deps, workspaceId, report.templateId, report.version ?? "latest", report.data, "");
  const filename = report.filename ?? `${report.templateId}.pdf`;
  const job = withPdfOptions(plan.job, pdf ?? {}, { find: assetFinder(deps, workspaceId), test: false, filename, at: "" });
  return toRender(deps, queue(deps, workspaceId, [{ ...plan, job, source: "report", test: false, metadata: {}, filename }])[0]!);
}

/** getRender answers one render of the workspace. */
export function getRender(deps: RenderDeps, workspaceId: string, id: string): Render {
  return toRender(deps, renderRow(deps, workspaceId, id));
}

/** waitForRender waits up to `seconds` for a render to reach a final state and answers it as it is then. A render
 * that failed is answered as its error (with its renderId), the way a synchronous call would fail. `accepted` is how
 * the render's acceptance was committed: one that did not wait for the disk is made durable before the answer. */
export async function waitForRender(deps: RenderDeps, workspaceId: string, render: Render, seconds: number, accepted: TxOptions = {}): Promise<Render> {
  const waits = seconds > 0 && !isFinalStatus(render.status);
  const ended = () => isFinalStatus(renderRow(deps, workspaceId, render.id).status);
  // The worker hands over the row its final transaction wrote: a durable commit after the acceptance's, which made the
  // acceptance durable as well. A render ended otherwise (cancelled) or still going at the end of the wait is read back.
  const row = waits ? await deps.worker.waitEnded(render.id, seconds * 1000, ended) : undefined;
  if (!row && accepted.durable === false) await deps.store.sync();
  if (row) return finalOrThrow(toRender(deps, row, render.deliveries !== undefined));
  return finalOrThrow(waits ? getRender(deps, workspaceId, render.id) : render);
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
export function listRenders(deps: RenderDeps, workspaceId: string, query: RenderListQuery): { items: Render[]; nextCursor?: string } {
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
export function listRenderRecords(store: Store, workspaceId: string, query: { limit?: string; cursor?: string }): { items: RenderRecord[]; nextCursor?: string } {
  return selectPage<RenderRow, RenderRecord>(store, query, { select: RENDER_COLUMNS, from: "renders", where: ["workspace_id = $ws"], params: { ws: workspaceId } }, renderRecordOf);
}

/** cancelRender cancels a render that is queued or processing (409 CONFLICT once it has ended): the final state, its
 * usage and its event are written at once, and a render being printed is stopped. */
export function cancelRender(deps: RenderDeps, workspaceId: string, id: string): Render {
  renderRow(deps, workspaceId, id);
  if (!deps.queue.cancel(id)) throw new ApiError("CONFLICT", `Render ${id} has already ${renderRow(deps, workspaceId, id).status}; only a queued or processing render can be cancelled.`);
  deps.worker.cancel(id);
  deps.worker.ended(id);
  return getRender(deps, workspaceId, id);
}

/** openResult checks a result address and answers the render's PDF; 403 for a bad or expired address, 404 once the
 * render is gone (retention) or when it has no PDF. */
export function openResult(deps: RenderDeps, id: string, token: unknown): Download {
  checkAddress(deps.config.secretKey, "result", id, token, deps.clock.now());
  return resultOf(deps, id);
}

/** resultOf answers the PDF of a succeeded render (404 when it has none); callers have checked who may read it. */
export function resultOf(deps: RenderDeps, id: string): Download {
  const r = deps.store.get<{ filename: string; output_sha256: string | null }>("SELECT filename, output_sha256 FROM renders WHERE id = $id AND status = 'succeeded'", { id });
  if (!r?.output_sha256) throw new ApiError("NOT_FOUND", `Render ${id} has no PDF.`);
  return { file: deps.files.open("outputs", r.output_sha256), sha256: r.output_sha256, mediaType: "application/pdf", filename: r.filename };
}
