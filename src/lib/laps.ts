/** lib/laps: how long each step of a sequence took, from one step's end to the next, in ms to the hundredth — a
 * render's own milliseconds by phase, which its "render succeeded" log line carries and bench/render.ts prints: whole
 * milliseconds of the render's timestamps hide what a change saves at concurrency 1. */
export class Laps {
  /** When the Laps was made (performance.now()). */
  readonly startedAt = performance.now();
  private last = this.startedAt;
  /** The steps so far, by name, in the order they ended. */
  readonly ms: Record<string, number> = {};

  /** lap ends the step `name`: the time since the previous step ended (or since the Laps was made). */
  lap(name: string): void {
    const now = performance.now();
    this.ms[name] = Math.round((now - this.last) * 100) / 100;
    this.last = now;
  }
}
