/** backoff: how a background loop lives through an outage it cannot mend (a full disk, a store that does not answer:
 * issue 26) — it catches, says so once when the outage starts and once when it ends, and waits longer before each new
 * try, up to a bound. Real time, not the injected clock: the waits are about the outage, not the calendar. */
import type { Logger } from "pino";

const FIRST_WAIT_MS = 500;
/** MAX_WAIT_MS bounds the wait: once space is freed, a loop is back within this. */
const MAX_WAIT_MS = 8_000;

/** Backoff is one loop's memory of its failures. */
export class Backoff {
  private failures = 0;
  private nextAt = 0;

  /** @param what names the loop's work in the log: "claiming renders". */
  constructor(
    private readonly log: Logger,
    private readonly what: string,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** ready tells whether the loop may try now (no failure, or its wait is over). */
  ready(): boolean {
    return this.now() >= this.nextAt;
  }

  /** waitMs answers how long until the loop may try again (0 when it may now). */
  waitMs(): number {
    return Math.max(0, this.nextAt - this.now());
  }

  /** failed records a try that failed: the first of an outage is logged, with the error; each one doubles the wait. */
  failed(err: unknown): void {
    if (this.failures === 0) this.log.error({ err }, `${this.what} failed; retrying with back-off until it works`);
    this.failures += 1;
    this.nextAt = this.now() + Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** (this.failures - 1));
  }

  /** succeeded records a try that worked, ending (and logging the end of) an outage. */
  succeeded(): void {
    if (this.failures === 0) return;
    this.log.info({ failures: this.failures }, `${this.what} works again`);
    this.failures = 0;
    this.nextAt = 0;
  }
}
