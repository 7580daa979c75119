/** running: a render a worker has claimed — the page it holds from its claim to its end — and why its print is stopped
 * before that end (the abort reasons the worker tells apart). */
import type { Claim } from "../queue/queue";
import type { PrintJob } from "./job";
import type { RenderOutput } from "./pool";

/** The render was cancelled: the cancel request wrote its final state already. */
export class Cancelled extends Error {}
/** The process is stopping: the render goes back to the queue. */
export class Stopping extends Error {}
/** The lease ran out and the render went back to the queue: another process prints it, this one writes nothing. */
export class LeaseLost extends Error {}

/** Running is a claimed render holding one of the worker's pages. */
export interface Running {
  workspaceId: string;
  startedAt: Date;
  controller: AbortController;
  done: Promise<void>;
  /** Its claim is committed and it prints: set by startAll. A claim made inside a render's end or its acceptance is
   * counted at once but committed with that transaction, and its lease is not asked about before. */
  started: boolean;
  /** The print begun while its acceptance was written (RenderWorker.printAhead), which the render takes over. */
  ahead?: Ahead;
}

/** Ahead is a print begun before its render was queued: it holds a page of its own until the claim in its acceptance's
 * transaction adopts it, or until its print ends unused (let go). */
export interface Ahead {
  workspaceId: string;
  job: PrintJob;
  controller: AbortController;
  printed: Promise<RenderOutput>;
  /** Adopted or let go: either ends its own hold on the page. */
  settled: boolean;
}

/** A render claimed for a free page, counted as running before it starts. */
export type Claimed = { claim: Claim; running: Running };
