/** templates/conversions: TanStack Query hooks for /v1/template-conversions (issue 14, docs/conversions.md) and the
 * PDF assets a conversion starts from. */
import { useQuery, useQueryClient, useMutation } from "@tanstack/react-query";
import type { Asset } from "../../../src/modules/assets/model";
import type { ConversionSummary, CreateConversionBody, TemplateConversion } from "../../../src/modules/template-conversions/model";
import { api, currentWorkspace, type Page } from "../../api/client";
import { usePage } from "../../api/page";
import { assetsKey } from "../../api/upload";

const key = () => ["template-conversions", currentWorkspace()];
const REFRESH_MS = 1000;

/** editorPath is where a succeeded conversion's template opens: the editor, told which conversion's sampleData to use. */
export function editorPath(templateId: string, conversionId: string): string {
  return `/templates/${templateId}?conversion=${conversionId}`;
}

const running = (c: ConversionSummary) => c.status === "queued" || c.status === "processing";

/** useConversions lists one page of conversions, newest first, asking again while any is on its way. */
export function useConversions(cursor?: string) {
  return usePage<Page<ConversionSummary>>([...key(), "list"], "/v1/template-conversions", { cursor, limit: 10 }, {
    refetchInterval: (q) => (q.state.data?.items.some(running) ? REFRESH_MS : false),
  });
}

/** useConversion reads one conversion, asking again every second until it has succeeded or failed. */
export function useConversion(id: string | null) {
  const client = useQueryClient();
  return useQuery({
    queryKey: [...key(), id],
    queryFn: async () => {
      const conversion = await api<TemplateConversion>(`/v1/template-conversions/${id}`);
      // The list may have last asked while this conversion was on its way: once it has ended, the list asks again
      // rather than show it running for another refresh.
      if (!running(conversion)) void client.invalidateQueries({ queryKey: [...key(), "list"] });
      return conversion;
    },
    enabled: id !== null,
    refetchInterval: (q) => (q.state.data && running(q.state.data) ? REFRESH_MS : false),
  });
}

/** useStartConversion asks for a conversion of a PDF asset (202; counted against templateConversionsPerMonth). */
export function useStartConversion() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateConversionBody) => api<TemplateConversion>("/v1/template-conversions", { method: "POST", body }),
    onSuccess: (c) => {
      client.setQueryData([...key(), c.id], c);
      void client.invalidateQueries({ queryKey: [...key(), "list"] });
      void client.invalidateQueries({ queryKey: ["render-limits"] });
    },
  });
}

/** usePdfAssets lists the workspace's PDF assets (the newest 100), to convert one or to name a conversion's source. */
export function usePdfAssets() {
  return usePage<Page<Asset>>(assetsKey(), "/v1/assets", { kind: "pdf", limit: 100 });
}
