/** serial-runner: a background job that never runs twice at once, where a request that comes while it runs makes it run
 * once more after (the render worker's fill, a claim loop's round, the template conversions' drain). No request is
 * lost: whether to run again and clearing the running mark happen in one synchronous step — the loop's last check and
 * its `finally` — so a request either is seen by that check or finds nothing running and starts a run. Clearing the
 * mark in a `.finally` on the loop's promise instead runs a microtask later, and a request in that gap sets a flag no
 * one reads again: the job then waits for the next request (a render for the 1 s poll). */

export interface SerialRunnerOptions {
  /** job is the work; requests while it runs are folded into one run after it. */
  job: () => Promise<void>;
  /** failed takes what the job threw: the run goes on as if the job had ended, and run() never rejects (an unhandled
   * rejection would end the process). */
  failed: (err: unknown) => void;
  /** rerun says whether a run asked for while the job ran may start now (false while stopping); always when left out. */
  rerun?: () => boolean;
}

/** SerialRunner runs one job, one run at a time, without losing a request. */
export class SerialRunner {
  private current: Promise<void> | null = null;
  private requested = false;

  constructor(private readonly options: SerialRunnerOptions) {}

  /** run starts the job, or, while it runs, asks for one more run after it; it resolves when no run is left. */
  run(): Promise<void> {
    if (this.current) {
      this.requested = true;
      return this.current;
    }
    this.current = this.loop();
    return this.current;
  }

  /** idle resolves once the job is not running. */
  async idle(): Promise<void> {
    while (this.current) await this.current;
  }

  private async loop(): Promise<void> {
    // The job starts a microtask later, once `current` is set: a job that throws at once, or asks for a run before its
    // first await, finds this run in place.
    await undefined;
    const { job, failed, rerun = () => true } = this.options;
    try {
      do {
        this.requested = false;
        try {
          await job();
        } catch (err) {
          failed(err);
        }
      } while (this.requested && rerun());
    } finally {
      this.current = null;
    }
  }
}
