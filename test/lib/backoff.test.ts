/** lib/backoff: a failing loop waits longer before each try, up to a bound, and logs an outage once at each end. */
import { expect, test } from "bun:test";
import { Backoff } from "../../src/lib/backoff";
import { collectedLog } from "../log-lines";

test("each failure doubles the wait from 0.5 s up to 8 s; the first failure and the first success after it are logged, nothing else", () => {
  const { log, lines } = collectedLog();
  let now = 1_000;
  const backoff = new Backoff(log, "claiming renders", () => now);
  expect([backoff.ready(), backoff.waitMs()]).toEqual([true, 0]);
  backoff.succeeded();
  const waits: number[] = [];
  for (let i = 0; i < 7; i++) {
    backoff.failed(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }));
    waits.push(backoff.waitMs());
    expect(backoff.ready()).toBe(false);
    now += backoff.waitMs();
    expect(backoff.ready()).toBe(true);
  }
  expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  backoff.succeeded();
  backoff.succeeded();
  expect(lines.map((l) => [l.level, l.msg])).toEqual([
    [50, "claiming renders failed; retrying with back-off until it works"],
    [30, "claiming renders works again"],
  ]);
  expect(lines[0].err.message).toBe("database or disk is full");
  expect(lines[1].failures).toBe(7);
  expect(backoff.waitMs()).toBe(0);
});
