/** renders/asset-bytes: a template's stylesheets and inline images are written into its print job when the job is
 * planned, and planning runs inside the transaction that charges the allowances and queues the render (synchronous:
 * one step, nothing awaits). The bytes live behind the FileStore, which answers asynchronously (an S3 bucket), so a
 * request reads the bytes its templates embed first; planning then takes them from this map. */
import { uploadedAsset } from "../../store/assets";
import { templateForRender } from "../templates/service";
import type { RenderDeps } from "./service";

/** AssetBytes maps a sha256 to the bytes stored under it. */
export type AssetBytes = ReadonlyMap<string, Uint8Array>;

/** TemplateUse names a template and the version a request renders ("draft", "latest" or a number). */
export interface TemplateUse {
  templateId: string;
  which: number | "draft" | "latest";
}

// The kinds whose bytes a job embeds (job.ts): stylesheets inline, images and SVGs in header and footer data URLs.
const EMBEDDED_KINDS = new Set(["stylesheet", "image", "svg"]);

/** withTemplateAssets answers `deps` carrying the bytes of the embedded assets of the templates `uses` names. A template
 * or asset that cannot be found is skipped: planning finds it missing and answers the request's own error. */
export async function withTemplateAssets(deps: RenderDeps, workspaceId: string, uses: readonly TemplateUse[]): Promise<RenderDeps> {
  const bytes = new Map<string, Uint8Array>();
  for (const use of uses) {
    let assetIds: string[];
    try {
      assetIds = templateForRender(deps.store, workspaceId, use.templateId, use.which).assetIds;
    } catch {
      continue;
    }
    for (const id of assetIds) {
      const asset = uploadedAsset(deps.store, workspaceId, id);
      if (!asset || !EMBEDDED_KINDS.has(asset.kind) || bytes.has(asset.sha256)) continue;
      const read = await deps.files.read("assets", asset.sha256);
      if (read) bytes.set(asset.sha256, read);
    }
  }
  return { ...deps, assetBytes: bytes };
}
