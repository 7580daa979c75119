/** assets/service: registering, uploading, reading, downloading and deleting a workspace's assets (spec 4.5), the
 * storage allowance, and the cleanup of registrations never uploaded. Each change is audited in its transaction. */
import type { Config } from "../../config";
import { ApiError, type ErrorDetail } from "../../errors";
import { selectPage } from "../../http/paging";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { awaitFileHold, dropFile, FileBeingDeleted, releaseFile, scheduleOrphans } from "../../store/file-deletions";
import { SourceFailed, TooManyBytes, type FileStore, type StoredFile, type TempFile } from "../../store/files";
import type { Reads, Store, Tx } from "../../store/store";
import type { Actor, ChangeContext } from "../../auth/actor";
import { deleteAudited, recordAudit } from "../audit/service";
import { lockWorkspace } from "../workspaces/service";
import { contentCheck } from "./content";
import { MEDIA_TYPES_OF_KIND, type Asset, type AssetCreated, type AssetDetail, type AssetKind, type AssetListQuery, type MediaType, type RegisterAssetBody } from "./model";
import { addressUrl, checkAddress, DOWNLOAD_ADDRESS_MS, signToken, UPLOAD_ADDRESS_MS, type AddressPurpose } from "./signing";

/** AssetDeps is what the asset functions work with: the store, the clock, the file store and the signing settings. */
export interface AssetDeps {
  store: Store;
  clock: Clock;
  files: FileStore;
  config: Pick<Config, "publicUrl" | "secretKey">;
}

/** SWEEP_ACTOR is the actor of the events the cleanup writes. */
export const SWEEP_ACTOR: Actor = { type: "system", id: "renderd", name: "renderd cleanup" };

interface AssetRow {
  id: string;
  workspace_id: string;
  kind: AssetKind;
  filename: string;
  media_type: MediaType;
  size: number;
  sha256: string;
  status: "pending" | "uploaded";
  created_at: string;
  upload_expires_at: string;
  uploaded_at: string | null;
  registered_by: string;
}

function toAsset(r: AssetRow): Asset {
  return { id: r.id, kind: r.kind, filename: r.filename, mediaType: r.media_type, size: r.size, sha256: r.sha256, createdAt: r.created_at };
}

function auditFacts(r: Pick<AssetRow, "kind" | "size" | "sha256">) {
  return { kind: r.kind, size: r.size, sha256: r.sha256 };
}

function notFound(id: string): ApiError {
  return new ApiError("NOT_FOUND", `Asset ${id} was not found.`);
}

function assetInvalid(details: ErrorDetail[]): ApiError {
  return new ApiError("ASSET_INVALID", "The uploaded file does not match its registration; nothing was kept. Upload it again before the address expires.", { details });
}

/** registrationNeed is the auth requirement of registering an asset of `kind` (spec 4.5): `asset:manage`, or
 * `template:content` for images (PNG and JPEG) only — SVG is active content (scripts, external references), so it
 * stays with `asset:manage`. */
export function registrationNeed(kind: AssetKind) {
  return kind === "image" ? ({ anyScope: ["asset:manage", "template:content"] } as const) : ({ scope: "asset:manage" } as const);
}

/** quotaDecision is the maxStorageBytes rule: uploaded bytes, plus bytes reserved by unexpired registrations, plus the
 * new registration's size must not go over the allowance (null = unlimited). */
export function quotaDecision(maxStorageBytes: number | null, keptOrReserved: number, size: number): "allow" | "refuse" {
  return maxStorageBytes !== null && keptOrReserved + size > maxStorageBytes ? "refuse" : "allow";
}

// Registrations whose upload is still streaming in are spared: the address was valid when the upload began, and the
// upload settles the row one way or the other when it ends.
async function expirePending(deps: AssetDeps, tx: Tx, ctx: ChangeContext, workspaceId: string | null): Promise<number> {
  const rows = await tx.all<AssetRow>(
    `SELECT * FROM assets WHERE status = 'pending' AND upload_expires_at <= $now ${workspaceId ? "AND workspace_id = $ws" : ""}`,
    workspaceId ? { now: deps.clock.now().toISOString(), ws: workspaceId } : { now: deps.clock.now().toISOString() },
  );
  let expired = 0;
  for (const r of rows) {
    if (deps.files.isHeldBy(r.id)) continue;
    await deleteAudited(tx, deps.clock, ctx, "assets", {
      workspaceId: r.workspace_id,
      action: "asset.expired",
      resourceType: "asset",
      resourceId: r.id,
      resourceName: r.filename,
      metadata: auditFacts(r),
    });
    expired += 1;
  }
  return expired;
}

/** registerAsset records a registration and answers its signed upload address (spec 4.5), or 429 QUOTA_EXCEEDED. */
export async function registerAsset(deps: AssetDeps, ctx: ChangeContext, workspaceId: string, input: RegisterAssetBody): Promise<AssetCreated> {
  if (!MEDIA_TYPES_OF_KIND[input.kind].includes(input.mediaType))
    throw new ApiError("BAD_REQUEST", "The request body is not valid.", {
      details: [{ path: "/mediaType", message: `a ${input.kind} asset must be one of: ${MEDIA_TYPES_OF_KIND[input.kind].join(", ")}` }],
    });
  const { store, clock } = deps;
  const now = clock.now();
  const uploadExpiresAt = new Date(now.getTime() + UPLOAD_ADDRESS_MS);
  const id = newId("ast");
  const asset = await store.tx(async (tx) => {
    // The workspace's row, locked: registrations of one workspace take turns, so two cannot both fit the last bytes.
    const max = (await lockWorkspace(tx, workspaceId)).maxStorageBytes;
    // Lazy cleanup: the workspace's own stale registrations go before its allowance is counted.
    await expirePending(deps, tx, { actor: SWEEP_ACTOR, requestId: ctx.requestId }, workspaceId);
    const used = (await tx.get<{ bytes: number }>(
      `SELECT COALESCE(SUM(size), 0) AS bytes FROM assets
       WHERE workspace_id = $ws AND (status = 'uploaded' OR upload_expires_at > $now)`,
      { ws: workspaceId, now: now.toISOString() },
    ))!.bytes;
    if (quotaDecision(max, used, input.size) === "refuse")
      throw new ApiError(
        "QUOTA_EXCEEDED",
        `The workspace may keep ${max} bytes of files (maxStorageBytes); ${used} are kept or reserved by pending uploads, so ${input.size} more do not fit.`,
        { details: [{ path: "/size", message: `${input.size} bytes would go over maxStorageBytes (${max}); ${used} are in use` }] },
      );
    await tx.run(
      `INSERT INTO assets (id, workspace_id, kind, filename, media_type, size, sha256, status, created_at, upload_expires_at, registered_by)
       VALUES ($id, $ws, $kind, $filename, $mediaType, $size, $sha256, 'pending', $now, $expires, $by)`,
      {
        id,
        ws: workspaceId,
        kind: input.kind,
        filename: input.filename,
        mediaType: input.mediaType,
        size: input.size,
        sha256: input.sha256,
        now: now.toISOString(),
        expires: uploadExpiresAt.toISOString(),
        by: JSON.stringify(ctx.actor),
      },
    );
    await recordAudit(tx, clock, ctx, { workspaceId, action: "asset.registered", resourceType: "asset", resourceId: id, resourceName: input.filename, metadata: auditFacts(input) });
    return toAsset(await assetRow(tx, workspaceId, id));
  });
  return {
    ...asset,
    uploadMethod: "PUT",
    uploadUrl: addressUrl(deps.config.publicUrl, "upload", id, signToken(deps.config.secretKey, "upload", id, uploadExpiresAt)),
    uploadHeaders: { "content-type": input.mediaType, "content-length": String(input.size) },
    uploadExpiresAt: uploadExpiresAt.toISOString(),
  };
}

async function assetRow(store: Reads, workspaceId: string, id: string): Promise<AssetRow> {
  const r = await store.get<AssetRow>("SELECT * FROM assets WHERE id = $id AND workspace_id = $ws", { id, ws: workspaceId });
  if (!r) throw notFound(id);
  return r;
}

// A registration not yet uploaded is not an asset yet: reading it answers 404 like an unknown id (docs/assets.md).
async function uploadedRow(store: Reads, workspaceId: string, id: string): Promise<AssetRow> {
  const r = await assetRow(store, workspaceId, id);
  if (r.status !== "uploaded") throw notFound(id);
  return r;
}

/** listAssets answers one page of the workspace's uploaded assets, newest first, optionally of one kind. */
export async function listAssets(store: Reads, workspaceId: string, query: AssetListQuery): Promise<{ items: Asset[]; nextCursor?: string }> {
  const where = ["workspace_id = $ws", "status = 'uploaded'"];
  if (query.kind) where.push("kind = $kind");
  return selectPage(store, query, { from: "assets", where, params: { ws: workspaceId, ...(query.kind ? { kind: query.kind } : {}) } }, toAsset);
}

/** getAsset answers an uploaded asset with a signed download address valid for DOWNLOAD_ADDRESS_MS. */
export async function getAsset(deps: AssetDeps, workspaceId: string, id: string): Promise<AssetDetail> {
  const r = await uploadedRow(deps.store, workspaceId, id);
  const expiresAt = new Date(deps.clock.now().getTime() + DOWNLOAD_ADDRESS_MS);
  return {
    ...toAsset(r),
    downloadUrl: addressUrl(deps.config.publicUrl, "download", r.id, signToken(deps.config.secretKey, "download", r.id, expiresAt)),
    expiresAt: expiresAt.toISOString(),
  };
}

/** deleteAsset removes an asset (or cancels a registration); when no other uploaded asset has the same bytes, the same
 * transaction records the deletion of its file, which the cleanup carries out after a grace (store/file-deletions.ts). */
export async function deleteAsset(deps: AssetDeps, ctx: ChangeContext, workspaceId: string, id: string): Promise<{ id: string; deleted: true; }> {
  const { store, clock } = deps;
  await store.tx(async (tx) => {
    const r = await assetRow(tx, workspaceId, id);
    await deleteAudited(tx, clock, ctx, "assets", { workspaceId, action: "asset.deleted", resourceType: "asset", resourceId: id, resourceName: r.filename, metadata: auditFacts(r) });
    if (r.status === "uploaded") await dropFile(tx, clock, "assets", r.sha256);
  });
  return { id, deleted: true as const };
}

function checkAssetAddress(deps: AssetDeps, purpose: AddressPurpose, id: string, token: unknown): void {
  checkAddress(deps.config.secretKey, purpose, id, token, deps.clock.now());
}

async function addressedRow(db: Reads, id: string, lock = false): Promise<AssetRow> {
  const r = await db.get<AssetRow>(`SELECT * FROM assets WHERE id = $id${lock ? " FOR UPDATE" : ""}`, { id });
  if (!r) throw notFound(id);
  return r;
}

/** Upload is the incoming body of an upload: its declared length and its chunks, never the whole body at once. */
export interface Upload {
  contentLength: string | null;
  body: AsyncIterable<Uint8Array> | null;
}

/** receiveUpload takes the bytes of a registered asset from its signed address (spec 4.5 upload flow): streamed to a
 * temporary file while hashing, checked for size, sha256 and content against the registration, then moved into the
 * content-addressed store and marked uploaded with its audit event. Any mismatch keeps nothing (422 ASSET_INVALID)
 * and the registration stays uploadable until its address expires. */
export async function receiveUpload(deps: AssetDeps, requestId: string, id: string, token: unknown, upload: Upload): Promise<Asset> {
  checkAssetAddress(deps, "upload", id, token);
  const r = await addressedRow(deps.store, id);
  if (r.status === "uploaded") throw new ApiError("CONFLICT", `Asset ${id} has already been uploaded.`);
  if (deps.files.isHeldBy(id)) throw new ApiError("CONFLICT", `An upload of asset ${id} is already in progress.`);
  if (upload.contentLength !== null && upload.contentLength.trim() !== String(r.size))
    throw assetInvalid([{ path: "/size", message: `the content-length ${upload.contentLength} differs from the registered size ${r.size}` }]);

  const check = contentCheck(r.media_type);
  let temp: TempFile;
  try {
    temp = await deps.files.writeTemp(id, upload.body, { maxBytes: r.size, onChunk: (c) => check.update(c) });
  } catch (e) {
    if (e instanceof TooManyBytes) throw assetInvalid([{ path: "/size", message: `more than the registered ${r.size} bytes arrived` }]);
    if (e instanceof SourceFailed) throw new ApiError("BAD_REQUEST", "The upload broke off before all its bytes arrived; nothing was kept.");
    throw e;
  }
  const problems: ErrorDetail[] = [];
  if (temp.bytes !== r.size) problems.push({ path: "/size", message: `${temp.bytes} bytes arrived; the registered size is ${r.size}` });
  if (temp.sha256 !== r.sha256) problems.push({ path: "/sha256", message: `the bytes have sha256 ${temp.sha256}; the registered sha256 is ${r.sha256}` });
  const content = check.finish();
  if (content) problems.push({ path: "/mediaType", message: content });
  if (problems.length) {
    deps.files.discard(temp);
    throw assetInvalid(problems);
  }

  return commitUpload(deps, requestId, id, temp);
}

// The bytes are held, stored, then the row says so and lets the hold go in one transaction: another process deleting
// the same bytes meanwhile leaves them alone (store/file-deletions.ts).
async function commitUpload(deps: AssetDeps, requestId: string, id: string, temp: TempFile): Promise<Asset> {
  const { store, clock } = deps;
  try {
    await awaitFileHold(store, clock, "assets", temp.sha256, id);
  } catch (e) {
    deps.files.discard(temp);
    if (e instanceof FileBeingDeleted) throw new ApiError("INTERNAL", "The same bytes are being deleted from storage right now; nothing was kept. Upload the file again in a few minutes.", { retryAfter: 60 });
    throw e;
  }
  try {
    await deps.files.commit("assets", temp);
  } catch (e) {
    deps.files.discard(temp);
    await store.tx((tx) => releaseFile(tx, clock, "assets", temp.sha256, id));
    throw e;
  }
  try {
    return await store.tx(async (tx) => {
      // The row may have changed while the bytes streamed in: deleted, or uploaded by a parallel request. Locked, so
      // that of two uploads of one registration the second sees the first's.
      const current = await addressedRow(tx, id, true);
      if (current.status === "uploaded") throw new ApiError("CONFLICT", `Asset ${id} has already been uploaded.`);
      await tx.run("UPDATE assets SET status = 'uploaded', uploaded_at = $t WHERE id = $id", { t: deps.clock.now().toISOString(), id });
      await recordAudit(tx, deps.clock, { actor: JSON.parse(current.registered_by) as Actor, requestId }, {
        workspaceId: current.workspace_id,
        action: "asset.uploaded",
        resourceType: "asset",
        resourceId: id,
        resourceName: current.filename,
        metadata: auditFacts(current),
      });
      if (!(await releaseFile(tx, clock, "assets", temp.sha256, id)))
        throw new ApiError("INTERNAL", "Storing the upload took so long that its bytes may have been deleted meanwhile; nothing was kept. Upload the file again.");
      return toAsset(current);
    });
  } catch (e) {
    // Given up: the bytes go after the grace unless another asset has them.
    await store.tx((tx) => releaseFile(tx, clock, "assets", temp.sha256, id));
    throw e;
  }
}

/** Download is a stored file as a download address answers it: its row's facts and its stored bytes. */
export interface Download {
  file: StoredFile;
  sha256: string;
  mediaType: string;
  filename: string;
}

/** openDownload checks a download address and answers the asset and its file; 403 for a bad or expired address. */
export async function openDownload(deps: AssetDeps, id: string, token: unknown): Promise<Download> {
  checkAssetAddress(deps, "download", id, token);
  const r = await addressedRow(deps.store, id);
  if (r.status !== "uploaded") throw notFound(id);
  return { file: deps.files.open("assets", r.sha256), sha256: r.sha256, mediaType: r.media_type, filename: r.filename };
}

/** sweepAssets deletes registrations whose upload address has expired (each with an `asset.expired` event) and
 * temporary upload files no upload is writing. The periodic cleanup calls it; so can a test, after moving the clock. */
export async function sweepAssets(deps: AssetDeps): Promise<{ expiredRegistrations: number; tempFiles: number }> {
  const expiredRegistrations = await deps.store.tx((tx) => expirePending(deps, tx, { actor: SWEEP_ACTOR, requestId: newId("req") }, null));
  return { expiredRegistrations, tempFiles: deps.files.sweepTemp() };
}

/** sweepOrphanFiles records the deletion of stored asset files older than the grace that no uploaded asset points at
 * and no upload holds (a crash between storing the bytes and committing the row). It walks the whole area, so it runs
 * at start; the cleanup's next sweepFileDeletions deletes them. */
export async function sweepOrphanFiles(deps: AssetDeps): Promise<number> {
  return scheduleOrphans(deps.store, deps.files, deps.clock, "assets");
}
