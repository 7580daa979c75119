/** print-ahead: prints begun before their render is queued (RenderWorker.printAhead; docs/rendering.md "The queue and
 * fairness") — the pages they hold until a claim adopts them (running.ts: Ahead), and the workspaces that get none for
 * now. */
import type { PrintJob } from "./job";
import type { RenderOutput } from "./pool";
import { Cancelled, type Ahead } from "./running";

/** PrintsAhead keeps the worker's prints begun ahead. */
export class PrintsAhead {
  private holding = 0;
  /** Workspaces whose last print ahead was let go unused (an acceptance refused, rolled back): none is begun for them
   * again until one of their renders is claimed in its acceptance, so a workspace going over its allowance costs
   * Chromium one stopped print each time, not one per refused request. */
  private readonly refused = new Set<string>();

  /** held counts the prints begun and not adopted or ended yet: each holds a page. */
  get held(): number {
    return this.holding;
  }

  /** mayBegin tells whether a print may be begun ahead for the workspace's render. */
  mayBegin(workspaceId: string): boolean {
    return !this.refused.has(workspaceId);
  }

  /** begin starts `print` for the job, holding a page. */
  begin(workspaceId: string, job: PrintJob, print: (signal: AbortSignal) => Promise<RenderOutput>): Ahead {
    const controller = new AbortController();
    const ahead: Ahead = { workspaceId, job, controller, printed: print(controller.signal), settled: false };
    // Its failure is the render's, met when the render awaits it; let go unused, it is nobody's.
    ahead.printed.catch(() => {});
    this.holding += 1;
    return ahead;
  }

  /** accepted records that a render of the workspace was claimed in its committed acceptance, taking over `ahead` if it
   * was printed ahead: its page is the render's now. */
  accepted(workspaceId: string, ahead: Ahead | undefined): void {
    this.refused.delete(workspaceId);
    if (!ahead) return;
    ahead.settled = true;
    this.holding -= 1;
  }

  /** letGo stops a print no claim adopted; `freed` is told once the pool has its page back. Adopted, nothing happens. */
  letGo(ahead: Ahead, freed: () => void): void {
    if (ahead.settled) return;
    ahead.settled = true;
    this.refused.add(ahead.workspaceId);
    ahead.controller.abort(new Cancelled("not accepted"));
    void ahead.printed.catch(() => {}).finally(() => {
      this.holding -= 1;
      freed();
    });
  }
}
