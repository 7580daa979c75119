/** clock: time is injected so that expiry, retries and day boundaries are tested without sleeping. */

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ManualClock is a clock that moves only when told to: for tests and benchmarks. */
export class ManualClock implements Clock {
  private ms: number;
  constructor(start: Date | string = "2026-01-15T12:00:00.000Z") {
    this.ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.ms);
  }
  set(to: Date | string): void {
    this.ms = new Date(to).getTime();
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

