import { describe, expect, test } from "bun:test";
import { MAX_ATTEMPTS, nextAttemptAt, nextAttemptDelayMs, RETRY_DELAYS_MS, TIMEOUT_MS } from "../../src/webhooks/retry";

const S = 1000;
const M = 60 * S;
const H = 60 * M;

describe("retry schedule (spec 6.5 (3))", () => {
  test.each([
    [1, 30 * S],
    [2, 2 * M],
    [3, 5 * M],
    [4, 15 * M],
    [5, 30 * M],
    [6, 1 * H],
    [7, 2 * H],
    [8, 4 * H],
    [9, 8 * H],
    [10, 8 * H],
    [11, null],
    [12, null],
  ])("after %i failed attempts the wait is %p ms", (attemptsMade, delay) => {
    expect(nextAttemptDelayMs(attemptsMade)).toBe(delay);
  });

  test("limits of spec 8.4", () => {
    expect(MAX_ATTEMPTS).toBe(11);
    expect(TIMEOUT_MS).toBe(10_000);
    expect(RETRY_DELAYS_MS.length).toBe(MAX_ATTEMPTS - 1);
  });

  test("the whole schedule spans 23 h 52 min 30 s from the first attempt", () => {
    const total = RETRY_DELAYS_MS.reduce((sum, d) => sum + d, 0);
    expect(total).toBe(23 * H + 52 * M + 30 * S);
  });

  test.each([0, -1, 1.5, Number.NaN])("rejects attemptsMade %p", (attemptsMade) => {
    expect(() => nextAttemptDelayMs(attemptsMade)).toThrow(RangeError);
  });
});

describe("nextAttemptAt", () => {
  const last = new Date("2026-01-15T12:00:00.000Z");

  test("counts the wait from the previous attempt", () => {
    expect(nextAttemptAt(last, 1)).toEqual(new Date("2026-01-15T12:00:30.000Z"));
    expect(nextAttemptAt(last, 10)).toEqual(new Date("2026-01-15T20:00:00.000Z"));
  });

  test("is null once the 11th attempt has failed", () => {
    expect(nextAttemptAt(last, MAX_ATTEMPTS)).toBeNull();
  });
});
