/** templates/api: TanStack Query hooks for /v1/templates, its versions, previews and test renders (spec 4.7, 4.9). */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CreateTemplateBody, Template, TemplateStarter, TemplateSummary, TemplateVersionSummary, UpdateTemplateBody } from "../../../src/modules/templates/model";
import type { Render } from "../../../src/modules/renders/model";
import type { Asset } from "../../../src/modules/assets/model";
import { api, ApiFailure, currentWorkspace, send, type CallInit, type Page } from "../../api/client";
import { useRefreshingMutation } from "../../api/mutation";
import { usePage } from "../../api/page";
import { assetsKey } from "../../api/upload";

const key = () => ["templates", currentWorkspace()];

/** useTemplates lists one page of templates. */
export function useTemplates(cursor?: string) {
  return usePage<Page<TemplateSummary>>([...key(), "list"], "/v1/templates", { cursor, limit: 50 });
}

/** Loaded is a template as read or saved, with the ETag naming that state: a save made from it sends it as If-Match,
 * so that a draft changed elsewhere since is not overwritten unawares (409 CONFLICT). */
export type Loaded = { template: Template; etag: string | null };

async function loaded(path: string, init?: CallInit): Promise<Loaded> {
  const response = await send(path, init);
  return { template: (await response.json()) as Template, etag: response.headers.get("etag") };
}

/** useTemplate reads one template with its draft. */
export function useTemplate(id: string) {
  return useQuery({ queryKey: [...key(), id], queryFn: () => loaded(`/v1/templates/${id}`) });
}

/** useVersions lists a template's published versions. */
export function useVersions(id: string) {
  return usePage<Page<TemplateVersionSummary>>([...key(), id, "versions"], `/v1/templates/${id}/versions`, { limit: 100 });
}

/** useStarters lists the starters a new template can begin from. */
export function useStarters() {
  return useQuery({ queryKey: ["template-starters"], queryFn: () => api<Page<TemplateStarter>>("/v1/template-starters"), staleTime: Infinity });
}

/** useCreateTemplate creates a template (from a starter). */
export function useCreateTemplate() {
  return useRefreshingMutation(key(), (body: CreateTemplateBody) => api<Template>("/v1/templates", { method: "POST", body }));
}

/** useSaveDraft replaces the draft's fields (PATCH); a 400/422 answer names each problem by its JSON pointer. With
 * `ifMatch` (the ETag of the draft the edits were made from) a draft changed elsewhere since is 409 CONFLICT; without,
 * the save overwrites it. A conflict reads the template again, so the page shows the draft as it is now. */
export function useSaveDraft(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ body, ifMatch }: { body: UpdateTemplateBody; ifMatch: string | null }) =>
      loaded(`/v1/templates/${id}`, { method: "PATCH", body, headers: ifMatch ? { "if-match": ifMatch } : {} }),
    onSuccess: (t) => client.setQueryData([...key(), id], t),
    onError: (error) => isConflict(error) && client.invalidateQueries({ queryKey: [...key(), id] }),
  });
}

/** isConflict tells whether a save failed because the draft was changed elsewhere since it was read. */
export function isConflict(error: unknown): boolean {
  return error instanceof ApiFailure && error.code === "CONFLICT";
}

/** usePublish freezes the draft as the next version. */
export function usePublish(id: string) {
  return useRefreshingMutation(key(), () => api<unknown>(`/v1/templates/${id}/publish`, { method: "POST" }));
}

/** useDeleteTemplate deletes a template and its versions. */
export function useDeleteTemplate() {
  return useRefreshingMutation(key(), (id: string) => api<unknown>(`/v1/templates/${id}`, { method: "DELETE" }));
}

/** useStarterPdf answers a starter printed with its sample data (renderd prints each once; the bytes never change). */
export function useStarterPdf(id: string) {
  return useQuery({
    queryKey: ["template-starters", id, "pdf"],
    queryFn: async () => new Uint8Array(await (await send(`/v1/template-starters/${id}/pdf`)).arrayBuffer()),
    staleTime: Infinity,
  });
}

/** useImageAssets lists the workspace's images and SVGs (the newest 100), which an image node can show. */
export function useImageAssets() {
  const page = usePage<Page<Asset>>(assetsKey(), "/v1/assets", { limit: 100 });
  return { ...page, images: page.data?.items.filter((a) => a.kind === "image" || a.kind === "svg") ?? [] };
}

/** useTestRender queues a test render of the draft. */
export function useTestRender(id: string) {
  return useRefreshingMutation(["renders"], (data: unknown) => api<Render>("/v1/renders", { method: "POST", body: { templateId: id, test: true, data } }));
}
