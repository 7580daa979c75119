/**
 * pdf-operations/service: operations on PDFs a workspace has (issue 30; docs/pdf.md "Operations on PDFs"). An operation
 * is checked whole when it is asked for — its options, its inputs found and opened, its pages, ranges and form fields —
 * and then queued as a job of the render queue (renders/service.ts `queue`): charged against the same allowances,
 * claimed fairly between workspaces, ended with its usage, end event and deliveries like any render.
 */
import { ApiError, type ErrorDetail } from "../../errors";
import { selectPage } from "../../http/paging";
import { listFormFields, type FormField } from "../../pdf/operations/forms";
import { openInput, OperationError } from "../../pdf/operations/open";
import { checkOperation, failedAt, openInputs, type JobInput, type OperationJob } from "../../render/operation";
import { checkOptions } from "../../render/operation-options";
import { uploadedAsset } from "../../store/assets";
import { outputsOf } from "../../store/render-outputs";
import { isFinalStatus } from "../../store/render-status";
import { RENDER_COLUMNS, type RenderRow } from "../../queue/queue";
import { addressUrl, DOWNLOAD_ADDRESS_MS, signToken, checkAddress } from "../assets/signing";
import type { Download } from "../assets/service";
import { assertCertificateUsable } from "../certificates/service";
import { deliveryTargets, renderDeliveries } from "../destinations/deliveries";
import { queue, type RenderDeps } from "../renders/service";
import type { Planned } from "../renders/plan";
import type { Reads, Tx } from "../../store/store";
import type { PdfOperation, PdfOperationListQuery, PdfOperationRequest } from "./model";

function badRequest(details: ErrorDetail[]): ApiError {
  const first = details[0]!;
  return new ApiError("BAD_REQUEST", `The request body is not valid: ${(first.path ?? "").slice(1)} ${first.message}.`, { details });
}

/** planOperation checks an operation request and makes its job: 400 for options or inputs that cannot work (with the
 * pointer of each), 422 ASSET_INVALID for inputs that are not the workspace's PDFs, 413 over the input limits. */
export async function planOperation(deps: RenderDeps, workspaceId: string, request: PdfOperationRequest): Promise<Planned> {
  const { operation, inputs, filename, destinationIds, ...options } = request;
  const problems = checkOptions(operation, inputs, options);
  if (operation === "split" && destinationIds?.length) problems.push({ path: "/destinationIds", message: "a split makes several PDFs; deliver them one by one instead" });
  if (problems.length) throw badRequest(problems);

  const found: JobInput[] = [];
  const missing: ErrorDetail[] = [];
  let bytes = 0;
  // Read together: one round trip each way on PostgreSQL.
  const sources = await Promise.all(inputs.map((input) => inputSource(deps, workspaceId, input.assetId, input.renderId)));
  inputs.forEach((input, i) => {
    const source = sources[i]!;
    if ("problem" in source) return missing.push({ path: `/inputs/${i}/${input.assetId ? "assetId" : "renderId"}`, message: source.problem });
    bytes += source.bytes;
    found.push({ area: source.area, sha256: source.sha256, title: input.title ?? source.filename, ...(input.password !== undefined && { password: input.password }) });
  });
  let image: OperationJob["image"];
  if (options.assetId !== undefined) {
    const asset = await uploadedAsset(deps.store, workspaceId, options.assetId);
    if (!asset || asset.kind !== "image") missing.push({ path: "/assetId", message: `no uploaded PNG or JPEG image asset ${options.assetId} in this workspace` });
    else image = { sha256: asset.sha256, mediaType: asset.mediaType };
  }
  if (missing.length) throw new ApiError("ASSET_INVALID", "The operation names inputs that cannot be used; see details.", { details: missing });
  if (bytes > deps.config.renderMaxInputBytes)
    throw new ApiError("LIMIT_EXCEEDED", `The inputs have ${bytes} bytes; the limit is ${deps.config.renderMaxInputBytes} (RENDER_MAX_INPUT_BYTES).`, { details: [{ path: "/inputs", message: `${bytes} bytes` }] });
  const [, deliveries] = await Promise.all([
    options.signature ? assertCertificateUsable(deps.store, deps.clock, workspaceId, options.signature.certificateId, "/signature/certificateId") : undefined,
    deliveryTargets(deps.store, workspaceId, destinationIds ?? [], "/destinationIds", "request"),
  ]);

  const { password, signature, assetId: _image, ...engineOptions } = options;
  const job: OperationJob = { operation, inputs: found, options: engineOptions, ...(image && { image }), ...(password && { encryption: password }), ...(signature && { signature }) };
  try {
    // Opened now as the worker will open them: a problem is answered at once instead of failing the operation later.
    const { opened } = await openInputs(job, { read: (area, sha256) => deps.files.read(area, sha256), maxPages: deps.config.renderMaxPages, maxOutputBytes: deps.config.renderMaxOutputBytes });
    await checkOperation(job, opened);
  } catch (e) {
    if (e instanceof OperationError) throw badRequest([{ path: e.path, message: e.message }]);
    throw e;
  }
  return { source: "operation", test: false, filename: filename ?? `${operation}.pdf`, metadata: {}, job, deliveries, details: JSON.stringify({ operation }) };
}

type Source = { area: JobInput["area"]; sha256: string; bytes: number; filename: string } | { problem: string };

/** inputSource finds an input's stored PDF: an uploaded PDF asset, or a succeeded render (or operation) of the workspace. */
async function inputSource(deps: RenderDeps, workspaceId: string, assetId?: string, renderId?: string): Promise<Source> {
  if (assetId !== undefined) {
    const [asset, row] = await Promise.all([
      uploadedAsset(deps.store, workspaceId, assetId),
      deps.store.get<{ size: number }>("SELECT size FROM assets WHERE id = $id", { id: assetId }),
    ]);
    if (!asset || !row) return { problem: `no uploaded asset ${assetId} in this workspace` };
    if (asset.mediaType !== "application/pdf") return { problem: `asset ${assetId} is ${asset.mediaType}, not a PDF` };
    return { area: "assets", sha256: asset.sha256, bytes: row.size, filename: asset.filename };
  }
  const r = await deps.store.get<{ output_sha256: string | null; bytes: number | null; filename: string; status: string }>(
    "SELECT output_sha256, bytes, filename, status FROM renders WHERE id = $id AND workspace_id = $ws",
    { id: renderId!, ws: workspaceId },
  );
  if (!r) return { problem: `no render ${renderId} in this workspace` };
  if (r.status !== "succeeded" || !r.output_sha256) return { problem: `render ${renderId} has ${r.status === "succeeded" ? "no PDF" : `not succeeded (it is ${r.status})`}` };
  return { area: "outputs", sha256: r.output_sha256, bytes: r.bytes ?? 0, filename: r.filename };
}

/** queueOperation queues a planned operation in `tx`, with its charge and deliveries, and answers it. */
export async function queueOperation(deps: RenderDeps, tx: Tx, workspaceId: string, plan: Planned): Promise<PdfOperation> {
  const [row] = await queue(deps, tx, workspaceId, [plan]);
  return toOperation(deps, row!, tx);
}

async function operationRow(deps: RenderDeps, workspaceId: string, id: string): Promise<RenderRow> {
  const r = await deps.store.get<RenderRow>(`SELECT ${RENDER_COLUMNS} FROM renders WHERE id = $id AND workspace_id = $ws AND kind = 'operation'`, { id, ws: workspaceId });
  if (!r) throw new ApiError("NOT_FOUND", `PDF operation ${id} was not found.`);
  return r;
}

/** getOperation answers one operation of the workspace. */
export async function getOperation(deps: RenderDeps, workspaceId: string, id: string): Promise<PdfOperation> {
  return toOperation(deps, await operationRow(deps, workspaceId, id));
}

/** listOperations answers one page of the workspace's operations, newest first. */
export function listOperations(deps: RenderDeps, workspaceId: string, query: PdfOperationListQuery): Promise<{ items: PdfOperation[]; nextCursor?: string }> {
  const where = ["workspace_id = $ws", "kind = 'operation'", ...(query.status ? ["status = $status"] : [])];
  return selectPage<RenderRow, PdfOperation>(deps.store, query, { from: "renders", where, params: { ws: workspaceId, ...(query.status && { status: query.status }) } }, (r) => toOperation(deps, r));
}

/** waitForOperation waits up to `seconds` for the operation to end and answers it; a failed one is its error, as for renders. */
export async function waitForOperation(deps: RenderDeps, workspaceId: string, op: PdfOperation, seconds: number): Promise<PdfOperation> {
  if (seconds > 0 && !isFinalStatus(op.status)) await deps.worker.waitEnded(op.id, seconds * 1000, async () => isFinalStatus((await operationRow(deps, workspaceId, op.id)).status));
  const now = seconds > 0 ? await getOperation(deps, workspaceId, op.id) : op;
  if (now.status === "failed" && now.error)
    throw new ApiError(now.error.code as ApiError["code"], now.error.message, { renderId: now.id, ...(now.error.path && { details: [{ path: now.error.path, message: now.error.message }] }) });
  return now;
}

// A failed operation's message starts with the pointer of what to fix (render/operation.ts failedAt).
const POINTED = /^(\/\S*): /;

/** toOperation answers a row as the API shows it, with fresh signed addresses once it has succeeded; `db` is the
 * transaction that queues it while that is open. */
async function toOperation(deps: RenderDeps, r: RenderRow, db: Reads = deps.store): Promise<PdfOperation> {
  const details = JSON.parse(r.details ?? "{}") as { operation: PdfOperation["operation"]; bytesBefore?: number };
  const op: PdfOperation = { id: r.id, operation: details.operation, status: r.status, filename: r.filename, createdAt: r.created_at };
  if (r.started_at) op.startedAt = r.started_at;
  if (r.finished_at) op.finishedAt = r.finished_at;
  if (r.status === "failed") {
    const message = r.error_message ?? "The operation failed.";
    const path = POINTED.exec(message)?.[1];
    op.error = { code: r.error_code ?? "RENDER_FAILED", message, ...(path && { path }) };
  }
  const split = details.operation === "split" && r.status === "succeeded";
  const [deliveries, outputs] = await Promise.all([renderDeliveries(db, r.id), split ? outputsOf(db, r.id) : []]);
  if (deliveries.length) op.deliveries = deliveries;
  if (r.status !== "succeeded" || !r.output_sha256) return op;
  const expiresAt = new Date(deps.clock.now().getTime() + DOWNLOAD_ADDRESS_MS);
  const token = signToken(deps.config.secretKey, "result", r.id, expiresAt);
  const downloadUrl = addressUrl(deps.config.publicUrl, "result", r.id, token);
  op.result = { downloadUrl, expiresAt: expiresAt.toISOString(), pages: r.pages ?? 0, bytes: r.bytes ?? 0 };
  if (split)
    op.result.outputs = outputs.map((o, i) => ({ downloadUrl: downloadUrl.replace("?token=", `/outputs/${i}?token=`), pages: o.pages, bytes: o.bytes }));
  if (details.bytesBefore !== undefined) Object.assign(op.result, { bytesBefore: details.bytesBefore, bytesAfter: r.bytes ?? 0 });
  return op;
}

/** cancelOperation cancels a queued or processing operation (409 CONFLICT once it has ended), as a render's cancel. */
export async function cancelOperation(deps: RenderDeps, workspaceId: string, id: string): Promise<PdfOperation> {
  const r = await operationRow(deps, workspaceId, id);
  if (!(await deps.queue.cancel(id))) throw new ApiError("CONFLICT", `PDF operation ${id} has already ${r.status === "queued" || r.status === "processing" ? "ended" : r.status}; only a queued or processing one can be cancelled.`);
  deps.worker.cancel(id);
  deps.worker.ended(id);
  return getOperation(deps, workspaceId, id);
}

/** openOutput checks a result address and answers output `i` of an operation (a split's part). */
export async function openOutput(deps: RenderDeps, id: string, i: number, token: unknown): Promise<Download> {
  checkAddress(deps.config.secretKey, "result", id, token, deps.clock.now());
  const [r, outputs] = await Promise.all([
    deps.store.get<{ filename: string }>("SELECT filename FROM renders WHERE id = $id AND status = 'succeeded'", { id }),
    outputsOf(deps.store, id),
  ]);
  const output = r ? outputs[i] : undefined;
  if (!r || !output) throw new ApiError("NOT_FOUND", `Operation ${id} has no output ${i}.`);
  return { file: deps.files.open("outputs", output.sha256), sha256: output.sha256, mediaType: "application/pdf", filename: r.filename.replace(/(\.pdf)?$/i, `-${i + 1}.pdf`) };
}

/** formFields lists the AcroForm fields of an uploaded PDF asset (404 for another workspace's or a missing one; 400
 * for an asset that is not a readable PDF, or one encrypted: fill takes its password, this list does not). */
export async function formFields(deps: RenderDeps, workspaceId: string, assetId: string): Promise<{ items: FormField[] }> {
  const asset = await uploadedAsset(deps.store, workspaceId, assetId);
  if (!asset) throw new ApiError("NOT_FOUND", `Asset ${assetId} was not found.`);
  if (asset.mediaType !== "application/pdf") throw new ApiError("BAD_REQUEST", `Asset ${assetId} is ${asset.mediaType}; only a PDF has form fields.`, { details: [{ path: "/id", message: "is not a PDF asset" }] });
  const bytes = await deps.files.read("assets", asset.sha256);
  if (!bytes) throw new ApiError("NOT_FOUND", `Asset ${assetId} has no bytes any more.`);
  try {
    return { items: listFormFields((await openInput(bytes, "/id")).doc) };
  } catch (e) {
    if (e instanceof OperationError) throw failedAt(e);
    throw e;
  }
}
