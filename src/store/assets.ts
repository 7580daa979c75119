/** store/assets: a workspace's uploaded asset by id — the one lookup renders, reports and the worker share — and the
 * bytes its uploaded assets hold, which the workspace's counters read. Another workspace's asset, or one registered
 * but not uploaded, reads as missing (DESIGN.md 2: never reveal that it exists). */
import type { Reads } from "./store";

/** UploadedAsset is what the readers of an asset need to serve or embed it. */
export interface UploadedAsset {
  kind: string;
  filename: string;
  mediaType: string;
  sha256: string;
}

/** uploadedAsset answers the workspace's uploaded asset with that id, or null. */
export async function uploadedAsset(db: Reads, workspaceId: string, assetId: string): Promise<UploadedAsset | null> {
  const row = await db.get<{ kind: string; filename: string; media_type: string; sha256: string }>(
    "SELECT kind, filename, media_type, sha256 FROM assets WHERE id = $id AND workspace_id = $ws AND status = 'uploaded'",
    { id: assetId, ws: workspaceId },
  );
  return row && { kind: row.kind, filename: row.filename, mediaType: row.media_type, sha256: row.sha256 };
}

/** storedBytes answers the bytes of a workspace's uploaded assets (spec 2.3 `storageBytes`): each asset counts its
 * size, even when another asset holds the same bytes. */
export async function storedBytes(store: Reads, workspaceId: string): Promise<number> {
  return (await store.get<{ bytes: number }>("SELECT COALESCE(SUM(size), 0) AS bytes FROM assets WHERE workspace_id = $ws AND status = 'uploaded'", { ws: workspaceId }))!.bytes;
}
