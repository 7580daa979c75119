/** api-keys/api: TanStack Query hooks for /v1/api-keys (spec 4.4). */
import type { ApiKey, ApiKeyCreated, CreateApiKeyBody } from "../../../src/modules/api-keys/model";
import { api, currentWorkspace, type Page } from "../../api/client";
import { useRefreshingMutation } from "../../api/mutation";
import { usePage } from "../../api/page";

const key = () => ["api-keys", currentWorkspace()];

/** useApiKeys lists one page of the workspace's keys. */
export function useApiKeys(cursor?: string) {
  return usePage<Page<ApiKey>>(key(), "/v1/api-keys", { cursor, limit: 50 });
}

/** useCreateApiKey creates a key; its answer carries the secret, shown once. */
export function useCreateApiKey() {
  return useRefreshingMutation(key(), (body: CreateApiKeyBody) => api<ApiKeyCreated>("/v1/api-keys", { method: "POST", body }));
}

/** useKeyAction rotates (new secret, shown once), revokes or deletes a key. */
export function useKeyAction() {
  return useRefreshingMutation(key(), async ({ id, action }: { id: string; action: "rotate" | "revoke" | "delete" }): Promise<ApiKeyCreated | ApiKey | undefined> => {
    if (action === "delete") return api<undefined>(`/v1/api-keys/${id}`, { method: "DELETE" });
    return action === "rotate" ? api<ApiKeyCreated>(`/v1/api-keys/${id}/rotate`, { method: "POST" }) : api<ApiKey>(`/v1/api-keys/${id}/revoke`, { method: "POST" });
  });
}
