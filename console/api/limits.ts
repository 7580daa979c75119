/** api/limits: the workspace's allowances and counters (`GET /v1/render-limits`), read by several pages. */
import { useQuery } from "@tanstack/react-query";
import type { RenderLimits } from "../../src/modules/workspaces/model";
import { api, currentWorkspace } from "./client";

/** useRenderLimits answers the chosen workspace's allowances (spec 2.2) and usage counters. */
export function useRenderLimits() {
  return useQuery({ queryKey: ["render-limits", currentWorkspace()], queryFn: () => api<RenderLimits>("/v1/render-limits") });
}
