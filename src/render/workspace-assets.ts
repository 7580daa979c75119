/** render/workspace-assets: what a render's page and its finishing may read — the uploaded assets of the render's own
 * workspace, nothing else. */
import { uploadedAsset } from "../store/assets";
import type { FileStore } from "../store/files";
import type { Store } from "../store/store";
import { parseAssetUrl } from "./assets";
import type { AssetBody, AssetLoader } from "./pool";

/** WorkspaceAsset answers an uploaded asset of one workspace by its id, or null. */
export type WorkspaceAsset = (assetId: string) => Promise<AssetBody | null>;

/** workspaceAsset reads the uploaded assets of `workspaceId` (the attached and embedded PDFs, the page's images). */
export function workspaceAsset(store: Store, files: FileStore, workspaceId: string): WorkspaceAsset {
  return async (assetId) => {
    const asset = await uploadedAsset(store, workspaceId, assetId);
    if (!asset) return null;
    const body = await files.read("assets", asset.sha256);
    return body ? { body, contentType: asset.mediaType } : null;
  };
}

/** pageAssets serves a page the assets its asset addresses name, through `asset`. */
export function pageAssets(asset: WorkspaceAsset): AssetLoader {
  return async (url) => {
    const named = parseAssetUrl(url);
    return named ? asset(named.assetId) : null;
  };
}
