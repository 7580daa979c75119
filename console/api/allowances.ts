/** api/allowances: the platform administrator's replacement of a workspace's allowances (spec 4.2, 3.4). */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { AllowancesReplacement, CompanyAllowances } from "../../src/modules/workspaces/model";
import { api } from "./client";

/** useReplaceAllowances sends PUT /v1/companies/{id}/allowances and refreshes every view of allowances. */
export function useReplaceAllowances(workspaceId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: AllowancesReplacement) => api<CompanyAllowances>(`/v1/companies/${workspaceId}/allowances`, { method: "PUT", body }),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ["render-limits"] }), client.invalidateQueries({ queryKey: ["platform"] })]),
  });
}
