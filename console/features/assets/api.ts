/** assets/api: TanStack Query hooks for /v1/assets (spec 4.5); the upload itself is shared (api/upload). */
import type { Asset, AssetKind } from "../../../src/modules/assets/model";
import { api, type Page } from "../../api/client";
import { useRefreshingMutation } from "../../api/mutation";
import { usePage } from "../../api/page";
import { assetsKey } from "../../api/upload";

/** useAssets lists one page of assets, optionally of one kind. */
export function useAssets(kind: AssetKind | undefined, cursor?: string) {
  return usePage<Page<Asset>>(assetsKey(), "/v1/assets", { kind, cursor, limit: 50 });
}

/** useDeleteAsset deletes an asset. */
export function useDeleteAsset() {
  return useRefreshingMutation(assetsKey(), (id: string) => api<unknown>(`/v1/assets/${id}`, { method: "DELETE" }));
}
