/** renders/plan: a render request checked and its print job made — the template, the document or the HTML, the data
 * against the template's schema, the certificate, the destinations — with reads that need no lock, before the
 * transaction that queues it (service.ts). The assets a job names are read first (asset-bytes.ts). */
import { ApiError } from "../../errors";
import { firstProblems } from "../../render/compile/node-check";
import type { Clock } from "../../lib/clock";
import { validateData } from "../../render/compile/data";
import type { SignatureSettings } from "../../pdf/sign";
import { documentJob, htmlJob, templateJob, type FindAsset, type PrintJob } from "../../render/job";
import { mergePdfOptions } from "../../render/pdf-options";
import { OUTPUT_DPI } from "../../render/image-output";
import type { OperationJob } from "../../render/operation";
import type { Ahead } from "../../render/running";
import { templateFor, withAssetBytes, type PlanningDeps, type TemplateRef } from "./asset-bytes";
import { assertCertificateUsable } from "../certificates/service";
import { checkTemplateAssets } from "../templates/service";
import { templateForRender, unsavedDraftForRender, type TemplateForRender } from "../templates/for-render";
import { deliveryTargets, type DeliveryTarget } from "../destinations/deliveries";
import { withPdfOptions } from "./pdf";
import { documentNodes, type PreviewRequest, type RenderMetadata, type RenderRequest } from "./model";

/** PlanDeps is what planning reads: the store, the files and the clock, and the assets read before it. */
export interface PlanDeps extends PlanningDeps {
  clock: Clock;
}

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
  /** The print begun for its job while it is queued (RenderWorker.printAhead). */
  ahead?: Ahead;
}

function badRequest(path: string, message: string): ApiError {
  return new ApiError("BAD_REQUEST", "The request body is not valid.", { details: [{ path, message }] });
}

/** assetFinder answers the workspace's uploaded assets by id from those read before planning; one not read yet, or
 * whose bytes are not, is noted as missing (withAssetBytes reads it and plans again). */
export function assetFinder(deps: PlanDeps): FindAsset {
  const assets = deps.assets;
  if (!assets) throw new Error("planning a render needs its assets read first (withAssetBytes)");
  return (assetId) => {
    if (!assets.rows.has(assetId)) {
      assets.missing.rows.add(assetId);
      return null;
    }
    const asset = assets.rows.get(assetId);
    if (!asset) return null;
    const bytes = () => {
      const read = assets.bytes.get(asset.sha256);
      if (read) return read;
      assets.missing.bytes.set(asset.sha256, assetId);
      return new Uint8Array();
    };
    return { kind: asset.kind, filename: asset.filename, mediaType: asset.mediaType, bytes };
  };
}

/** templatePlan checks that the template's assets are still there (ASSET_INVALID: they may have been deleted since it
 * was saved) and the data against its schema (DATA_INVALID, a pointer per problem), then renders it. Without data it
 * renders the template's sampleData when `sample` is set (a preview), else `{}`. */
export async function templatePlan(deps: PlanDeps, workspaceId: string, template: TemplateForRender, given: unknown, at: string, sample = false) {
  const missing = await checkTemplateAssets(deps.store, workspaceId, { ...template.source, assetIds: template.assetIds });
  if (missing.length) throw new ApiError("ASSET_INVALID", "An asset the template needs is no longer available.", { details: missing });
  const data = given ?? (sample ? template.sampleData : undefined) ?? {};
  if (template.source.dataSchema) {
    const problems = validateData(template.source.dataSchema, data, `${at}/data`);
    if (problems.length) throw new ApiError("DATA_INVALID", "The data does not match the template's data schema.", { details: problems });
  }
  return {
    templateId: template.templateId,
    templateVersion: template.version,
    pdf: template.pdf,
    signature: template.signature,
    destinationIds: template.destinationIds,
    job: await templateJob(template, data, assetFinder(deps)),
  };
}

// A client fixing a document needs the first problems, not thousands.
const MAX_DOCUMENT_PROBLEMS = 20;

/** planRequest checks one render request (its fields pointed at below `at`) and makes its job, with the signature it or
 * its template asks for (issue 13) once its certificate is found usable. */
async function planRequest(deps: PlanDeps, workspaceId: string, request: RenderRequest, at: string): Promise<Planned> {
  const { signature: templateSignature, destinationIds: templateDestinations, ...planned } = await planSource(deps, workspaceId, request, at);
  const signature = request.signature ?? templateSignature;
  const ids = request.destinationIds ?? templateDestinations ?? [];
  const [, deliveries] = await Promise.all([
    signature ? assertCertificateUsable(deps.store, deps.clock, workspaceId, signature.certificateId, `${at}/signature/certificateId`) : undefined,
    deliveryTargets(deps.store, workspaceId, ids, `${at}/destinationIds`, request.destinationIds ? "request" : "template"),
  ]);
  const output = request.output && { ...request.output, dpi: request.output.dpi ?? OUTPUT_DPI };
  const job = { ...planned.job, ...(signature && { signature }), ...(output && { output }) };
  return { ...planned, job, deliveries, data: request.data, ...(output && { details: JSON.stringify({ output }) }) };
}

/** templateUse answers the template and version a render request renders, or null for a document or HTML. */
function templateUse(request: RenderRequest): TemplateRef | null {
  if (request.templateId === undefined) return null;
  // A draft is rendered only as a test render (DESIGN.md 4); without a version a real render uses the newest one.
  return { templateId: request.templateId, which: request.version ?? (request.test ? "draft" : "latest") };
}

async function planSource(deps: PlanDeps, workspaceId: string, request: RenderRequest, at: string): Promise<Planned & { signature?: SignatureSettings; destinationIds?: string[] }> {
  const given = (["templateId", "document", "html"] as const).filter((field) => request[field] !== undefined);
  if (given.length !== 1) throw badRequest(at, "give exactly one of templateId, document or html");
  if (request.templateId === undefined) {
    if (request.version !== undefined) throw badRequest(`${at}/version`, "is only allowed with templateId");
    if (request.data !== undefined) throw badRequest(`${at}/data`, "is only allowed with templateId");
  }
  const test = request.test ?? false;
  const common = { test, metadata: request.metadata ?? {} };
  const fail = request.failOnBlockedResources ? { failOnBlockedResources: true } : {};
  const find = assetFinder(deps);
  const use = templateUse(request);
  if (use) {
    const { pdf, ...plan } = await templatePlan(deps, workspaceId, await templateFor(deps, workspaceId, use), request.data, at);
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

/** planRender checks one render request (POST /v1/renders) and makes its job, with the reads it needs and no lock. */
export async function planRender(deps: PlanDeps, workspaceId: string, request: RenderRequest): Promise<Planned> {
  return withAssetBytes(deps, workspaceId, usesOf([request]), (d) => planRequest(d, workspaceId, request, ""));
}

/** planBatch checks every item of a batch (pointers `/items/<i>/…`) and makes their jobs. */
export async function planBatch(deps: PlanDeps, workspaceId: string, items: RenderRequest[]): Promise<Planned[]> {
  return withAssetBytes(deps, workspaceId, usesOf(items), (d) => Promise.all(items.map((item, i) => planRequest(d, workspaceId, item, `/items/${i}`))));
}

/** planPreview makes the job of a template preview — of the unsaved draft the request gives, else of the saved draft
 * or the version it names — with the template's sample data when the request gives no data. */
export async function planPreview(deps: PlanDeps, workspaceId: string, templateId: string, request: PreviewRequest) {
  const template = await previewed(deps, workspaceId, templateId, request);
  return withAssetBytes(deps, workspaceId, [{ template }], async (d) => {
    const { pdf, ...plan } = await templatePlan(d, workspaceId, template, request.data, "", true);
    return { pdf, plan, find: assetFinder(d) };
  });
}

/** previewed answers what a preview renders: the unsaved draft it was given (checked as saving it would be, problems
 * below /draft), else the saved draft or the version it names. */
async function previewed(deps: PlanDeps, workspaceId: string, templateId: string, request: PreviewRequest): Promise<TemplateForRender> {
  if (request.draft === undefined) return templateForRender(deps.store, workspaceId, templateId, request.version ?? "draft");
  if (request.version !== undefined) throw badRequest("/version", "is not allowed with draft: a preview renders either a version or a draft");
  return unsavedDraftForRender(deps.store, deps.clock, workspaceId, templateId, request.draft, "/draft");
}

/** usesOf answers the templates a set of render requests renders. */
function usesOf(requests: readonly RenderRequest[]): TemplateRef[] {
  return requests.flatMap((r) => templateUse(r) ?? []);
}
