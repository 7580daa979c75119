/** assets/api: TanStack Query hooks for /v1/assets (spec 4.5); the upload itself is shared (api/upload). */
import { useQuery } from "@tanstack/react-query";
import type { Static } from "@sinclair/typebox";
import type { Asset, AssetKind } from "../../../src/modules/assets/model";
import type { FormFields, PdfOperation, PdfOperationRequest } from "../../../src/modules/pdf-operations/model";
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

/** useFormFields lists an uploaded PDF's form fields (the names fill takes). */
export function useFormFields(id: string) {
  return useQuery({ queryKey: ["form-fields", id], queryFn: () => api<Static<typeof FormFields>>(`/v1/assets/${id}/form-fields`) });
}

/** useCreateOperation asks for an operation on PDFs (POST /v1/pdf-operations). */
export function useCreateOperation() {
  return useRefreshingMutation(["pdf-operations"], (body: PdfOperationRequest) => api<PdfOperation>("/v1/pdf-operations", { method: "POST", body }));
}

/** useOperation follows an operation, asking again every second until it has ended. */
export function useOperation(id: string) {
  return useQuery({
    queryKey: ["pdf-operations", id],
    queryFn: () => api<PdfOperation>(`/v1/pdf-operations/${id}`),
    refetchInterval: (q) => (q.state.data && !["queued", "processing"].includes(q.state.data.status) ? false : 1000),
  });
}
