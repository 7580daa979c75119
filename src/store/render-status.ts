/** store/render-status: the values of `renders.status` (spec 3.2), spelled once, and which of them are final. */

export const RENDER_STATUSES = ["queued", "processing", "succeeded", "failed", "cancelled"] as const;
export type RenderStatus = (typeof RENDER_STATUSES)[number];

export const FINAL_STATUSES = ["succeeded", "failed", "cancelled"] as const satisfies readonly RenderStatus[];
export type FinalStatus = (typeof FINAL_STATUSES)[number];

/** isFinalStatus tells a final state: the render will not change any more (only retention deletes it). */
export function isFinalStatus(status: RenderStatus): status is FinalStatus {
  return (FINAL_STATUSES as readonly RenderStatus[]).includes(status);
}
