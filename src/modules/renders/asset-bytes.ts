/** renders/asset-bytes: a template's stylesheets and the images of its header and footer are written into the print job
 * when the job is planned, and planning finds an asset's bytes as it meets the asset, deep inside the compiler, which
 * cannot wait for a read there. The bytes live behind the FileStore, which answers asynchronously (an S3 bucket), so
 * they are read before: the template's own assets at once, and an asset the data names (an image id read from data)
 * when planning asks for it — planning then stops with AssetBytesNeeded and runs again with its bytes. */
import { ApiError } from "../../errors";
import { uploadedAsset } from "../../store/assets";
import type { FileStore } from "../../store/files";
import type { Store } from "../../store/store";
import { templateForRender } from "../templates/service";

/** AssetBytes maps a sha256 to the bytes stored under it. */
export type AssetBytes = ReadonlyMap<string, Uint8Array>;

/** PlanningDeps is what reading the bytes takes, and where planning finds them (the renders service's deps). */
export interface PlanningDeps {
  store: Store;
  files: FileStore;
  assetBytes?: AssetBytes;
}

/** TemplateUse names a template and the version a request renders ("draft", "latest" or a number); `assetIds` are
 * those of an unsaved draft the request gives instead (a preview's). */
export interface TemplateUse {
  templateId: string;
  which: number | "draft" | "latest";
  assetIds?: string[];
}

/** AssetBytesNeeded stops a planning that needs bytes not read yet; withAssetBytes reads them and plans again. */
export class AssetBytesNeeded extends Error {
  constructor(
    readonly assetId: string,
    readonly sha256: string,
  ) {
    super(`the bytes of asset ${assetId} are needed`);
    this.name = "AssetBytesNeeded";
  }
}

// The kinds whose bytes a job embeds (render/job.ts): stylesheets inline, images and SVGs as data URLs.
const EMBEDDED_KINDS = new Set(["stylesheet", "image", "svg"]);
// Each asset named only by the data costs one more planning; a request naming more is refused rather than replanned.
const MAX_REPLANS = 20;

/** withAssetBytes runs `plan` (which plans and may queue) with the bytes of the embedded assets of the templates `uses`
 * names, reading any other asset's bytes that planning asks for and planning again. */
export async function withAssetBytes<D extends PlanningDeps, T>(deps: D, workspaceId: string, uses: readonly TemplateUse[], plan: (deps: D) => T | Promise<T>): Promise<T> {
  const bytes = new Map<string, Uint8Array>();
  for (const use of uses) {
    let assetIds: string[];
    try {
      assetIds = use.assetIds ?? templateForRender(deps.store, workspaceId, use.templateId, use.which).assetIds;
    } catch {
      // Planning finds the template missing and answers the request's own error.
      continue;
    }
    for (const id of assetIds) {
      const asset = uploadedAsset(deps.store, workspaceId, id);
      if (asset && EMBEDDED_KINDS.has(asset.kind)) await read(deps, bytes, id, asset.sha256);
    }
  }
  for (let replans = 0; ; replans++) {
    try {
      return await plan({ ...deps, assetBytes: bytes });
    } catch (e) {
      if (!(e instanceof AssetBytesNeeded)) throw e;
      if (replans === MAX_REPLANS)
        throw new ApiError("LIMIT_EXCEEDED", `The request's data names more than ${MAX_REPLANS} assets to embed in a header or footer; name fewer.`);
      await read(deps, bytes, e.assetId, e.sha256);
    }
  }
}

async function read(deps: PlanningDeps, bytes: Map<string, Uint8Array>, assetId: string, sha256: string): Promise<void> {
  if (bytes.has(sha256)) return;
  const read = await deps.files.read("assets", sha256);
  if (!read) throw new ApiError("ASSET_INVALID", `Asset ${assetId} is no longer available; upload it again or name another.`);
  bytes.set(sha256, read);
}
