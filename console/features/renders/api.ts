/** renders/api: TanStack Query hooks for /v1/renders (spec 4.9); lists refresh while a render is on its way. */
import { useQuery } from "@tanstack/react-query";
import type { Render, RenderListQuery } from "../../../src/modules/renders/model";
import { api, currentWorkspace, type Page } from "../../api/client";
import { useRefreshingMutation } from "../../api/mutation";
import { usePage } from "../../api/page";

const key = () => ["renders", currentWorkspace()];
const REFRESH_MS = 2000;

const pending = (r: Render) => r.status === "queued" || r.status === "processing";

/** useRenders lists renders with the given filters, asking again every 2 s while any is queued or processing. */
export function useRenders(filters: Pick<RenderListQuery, "status" | "test" | "cursor">) {
  return usePage<Page<Render>>([...key(), "list"], "/v1/renders", { ...filters, limit: 50 }, { refetchInterval: (q) => (q.state.data?.items.some(pending) ? REFRESH_MS : false) });
}

/** useRender reads one render, asking again while it is on its way. */
export function useRender(id: string) {
  return useQuery({
    queryKey: [...key(), id],
    queryFn: () => api<Render>(`/v1/renders/${id}`),
    refetchInterval: (q) => (q.state.data && pending(q.state.data) ? REFRESH_MS : false),
  });
}

/** useCancelRender cancels a queued or processing render. */
export function useCancelRender() {
  return useRefreshingMutation(key(), (id: string) => api<Render>(`/v1/renders/${id}/cancel`, { method: "POST" }));
}

/** pageImage answers the address of page n of a succeeded render as an image `width` pixels wide, from its signed
 * pageImageUrl, relative to the console's own origin (the server that serves the console serves the image). */
export function pageImage(render: Render, n: number, width: number): string | null {
  if (!render.result) return null;
  const address = new URL(render.result.pageImageUrl.replace("{n}", String(n)));
  return `${address.pathname}${address.search}&width=${width}`;
}
