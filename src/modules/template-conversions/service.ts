/** template-conversions/service: a workspace's conversions of PDF assets into templates — created against the
 * `templateConversionsPerMonth` allowance (spec 2.2, 2.3), claimed and finished by the runner, each change audited in
 * its own transaction. */
import type { Actor, ChangeContext } from "../../auth/actor";
import { ApiError } from "../../errors";
import { selectPage } from "../../http/paging";
import { addToCounter, conversionsThisMonth, monthOf } from "../../ledger/counters";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import type { Reads, Store } from "../../store/store";
import { recordAudit } from "../audit/service";
import { createTemplate } from "../templates/service";
import { CreateTemplateBody, MAX_SAMPLE_DATA_BYTES, parseBody, type TemplateDraft } from "../templates/model";
import { getAllowances } from "../workspaces/service";
import type { ConversionStatus, ConversionSummary, CreateConversionBody, TemplateConversion } from "./model";

/** ConversionRow is a row of template_conversions. */
export interface ConversionRow {
  id: string;
  workspace_id: string;
  asset_id: string;
  status: ConversionStatus;
  template_id: string | null;
  error: string | null;
  sample_data: string | null;
  attempts: number;
  requested_by: string;
  request_id: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** MAX_ATTEMPTS: a conversion interrupted this many times by a stop or crash fails instead of starting again. */
export const MAX_ATTEMPTS = 2;

function toConversion(r: ConversionRow): TemplateConversion {
  return {
    id: r.id,
    assetId: r.asset_id,
    status: r.status,
    ...(r.template_id ? { templateId: r.template_id } : {}),
    ...(r.error ? { error: r.error } : {}),
    ...(r.sample_data ? { sampleData: JSON.parse(r.sample_data) as Record<string, unknown> } : {}),
    createdAt: r.created_at,
    ...(r.started_at ? { startedAt: r.started_at } : {}),
    ...(r.finished_at ? { finishedAt: r.finished_at } : {}),
  };
}

async function conversionRow(store: Reads, workspaceId: string, id: string): Promise<ConversionRow> {
  const r = await store.get<ConversionRow>("SELECT * FROM template_conversions WHERE id = $id AND workspace_id = $ws", { id, ws: workspaceId });
  // DESIGN.md 2: another workspace's conversion is 404 too.
  if (!r) throw new ApiError("NOT_FOUND", `Template conversion ${id} was not found.`);
  return r;
}

async function assertPdfAsset(store: Reads, workspaceId: string, assetId: string): Promise<void> {
  const asset = await store.get<{ kind: string; status: string }>("SELECT kind, status FROM assets WHERE id = $id AND workspace_id = $ws", { id: assetId, ws: workspaceId });
  const at = (message: string) => ({ details: [{ path: "/assetId", message }] });
  // DESIGN.md 2: another workspace's asset is not found either.
  if (!asset) throw new ApiError("NOT_FOUND", `Asset ${assetId} was not found; upload the PDF as an asset of kind pdf first.`, at("no such asset in this workspace"));
  if (asset.status !== "uploaded") throw new ApiError("ASSET_INVALID", `Asset ${assetId} has not been uploaded yet; send its bytes to the upload address, then convert it.`, at("not uploaded yet"));
  if (asset.kind !== "pdf") throw new ApiError("ASSET_INVALID", `Asset ${assetId} is a ${asset.kind} asset; a conversion takes a PDF (an asset of kind pdf).`, at(`is a ${asset.kind} asset, not a pdf`));
}

/** createConversion checks the asset and the allowance, counts the conversion and queues it for the runner. */
export async function createConversion(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, input: CreateConversionBody): Promise<TemplateConversion> {
  return store.tx(async (tx) => {
    await assertPdfAsset(tx, workspaceId, input.assetId);
    const allowed = (await getAllowances(tx, workspaceId)).templateConversionsPerMonth;
    const used = await conversionsThisMonth(tx, clock, workspaceId);
    // spec 2.3: the counter includes a conversion in progress, and one that failed still counts.
    if (allowed !== null && used + 1 > allowed)
      throw new ApiError("QUOTA_EXCEEDED", `The workspace converted ${used} of its ${allowed} PDFs this month; the count starts again on the 1st (UTC), or a platform administrator can raise templateConversionsPerMonth.`);
    const now = clock.now();
    addToCounter(tx, workspaceId, "template_conversions", monthOf(now), 1);
    const id = newId("tcv");
    await tx.run(
      `INSERT INTO template_conversions (id, workspace_id, asset_id, status, requested_by, request_id, created_at)
       VALUES ($id, $ws, $asset, 'queued', $by, $request, $now)`,
      { id, ws: workspaceId, asset: input.assetId, by: JSON.stringify(ctx.actor), request: ctx.requestId, now: now.toISOString() },
    );
    await recordAudit(tx, clock, ctx, { workspaceId, action: "template_conversion.created", resourceType: "template_conversion", resourceId: id, metadata: { assetId: input.assetId } });
    return toConversion(await conversionRow(tx, workspaceId, id));
  });
}

/** getConversion answers one conversion of the workspace. */
export async function getConversion(store: Reads, workspaceId: string, id: string): Promise<TemplateConversion> {
  return toConversion(await conversionRow(store, workspaceId, id));
}

/** listConversions answers one page of the workspace's conversions, newest first, without their sample data. */
export async function listConversions(store: Reads, workspaceId: string, query: { limit?: string; cursor?: string }): Promise<{ items: ConversionSummary[]; nextCursor?: string }> {
  const select = "id, workspace_id, asset_id, status, template_id, error, NULL AS sample_data, attempts, requested_by, request_id, created_at, started_at, finished_at";
  return selectPage(store, query, { select, from: "template_conversions", where: ["workspace_id = $ws"], params: { ws: workspaceId } }, toConversion);
}

/** claimNextConversion marks the oldest queued conversion processing and answers it, or null when none waits. */
export async function claimNextConversion(store: Store, clock: Clock): Promise<ConversionRow | null> {
  // Skipping a row another process is claiming: each conversion is claimed once, and claimers never wait for each other.
  return store.tx((tx) =>
    tx.get<ConversionRow>(
      `UPDATE template_conversions SET status = 'processing', attempts = attempts + 1, started_at = $now
       WHERE id = (SELECT id FROM template_conversions WHERE status = 'queued' ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      { now: clock.now().toISOString() },
    ),
  );
}

// The template and the audit rows are written on behalf of whoever asked for the conversion, under their request id.
const requesterOf = (r: ConversionRow): ChangeContext => ({ actor: JSON.parse(r.requested_by) as Actor, requestId: r.request_id });

/** succeedConversion creates the template and records the conversion's success in one transaction. */
export async function succeedConversion(store: Store, clock: Clock, r: ConversionRow, name: string, draft: TemplateDraft, sampleData: Record<string, unknown>): Promise<void> {
  await store.tx(async (tx) => {
    // Checked as a client's body would be, so the draft is one a PATCH of it would accept too.
    // The values found become the template's sample data, unless there are more than a template keeps.
    const sample = Buffer.byteLength(JSON.stringify(sampleData)) <= MAX_SAMPLE_DATA_BYTES ? { sampleData } : {};
    const body = parseBody(CreateTemplateBody, { name, description: `Converted from PDF asset ${r.asset_id}.`, ...draft, ...sample });
    const { template } = await createTemplate(tx, clock, requesterOf(r), r.workspace_id, body);
    await tx.run("UPDATE template_conversions SET status = 'succeeded', template_id = $tpl, sample_data = $sample, finished_at = $now WHERE id = $id", {
      id: r.id,
      tpl: template.id,
      sample: JSON.stringify(sampleData),
      now: clock.now().toISOString(),
    });
    await recordAudit(tx, clock, requesterOf(r), { workspaceId: r.workspace_id, action: "template_conversion.succeeded", resourceType: "template_conversion", resourceId: r.id, metadata: { templateId: template.id } });
  });
}

/** failConversion records why a conversion failed. */
export async function failConversion(store: Store, clock: Clock, r: ConversionRow, error: string): Promise<void> {
  await store.tx(async (tx) => {
    await tx.run("UPDATE template_conversions SET status = 'failed', error = $error, finished_at = $now WHERE id = $id", { id: r.id, error, now: clock.now().toISOString() });
    await recordAudit(tx, clock, requesterOf(r), { workspaceId: r.workspace_id, action: "template_conversion.failed", resourceType: "template_conversion", resourceId: r.id, metadata: { error } });
  });
}

/** recoverConversions runs at start: a conversion a stop or crash left processing is queued again, or fails once it
 * has been interrupted MAX_ATTEMPTS times, so none stays stuck. Answers how many were queued again and failed. */
export async function recoverConversions(store: Store, clock: Clock): Promise<{ requeued: number; failed: number; }> {
  const left = await store.all<ConversionRow>("SELECT * FROM template_conversions WHERE status = 'processing'");
  let failed = 0;
  for (const r of left) {
    if (r.attempts >= MAX_ATTEMPTS) {
      await failConversion(store, clock, r, `The conversion was interrupted ${r.attempts} times by a restart of renderd; start a new conversion.`);
      failed += 1;
    } else await store.tx((tx) => tx.run("UPDATE template_conversions SET status = 'queued', started_at = NULL WHERE id = $id AND status = 'processing'", { id: r.id }));
  }
  return { requeued: left.length - failed, failed };
}
