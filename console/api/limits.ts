/** api/limits: the workspace's allowances and counters (`GET /v1/render-limits`), read by several pages. */
import { useQuery } from "@tanstack/react-query";
import type { RenderActivity } from "../../src/modules/renders/model";
import type { RenderLimits } from "../../src/modules/workspaces/model";
import { api, currentWorkspace } from "./client";

/** useRenderLimits answers the chosen workspace's allowances (spec 2.2) and usage counters. */
export function useRenderLimits() {
  return useQuery({ queryKey: ["render-limits", currentWorkspace()], queryFn: () => api<RenderLimits>("/v1/render-limits") });
}

/** useRenderActivity answers the renders queued or processing now (`GET /v1/render-activity`), against `maxActiveRenders`. */
export function useRenderActivity() {
  return useQuery({
    queryKey: ["render-activity", currentWorkspace()],
    queryFn: () => api<RenderActivity>("/v1/render-activity"),
    refetchInterval: 5000,
  });
}
