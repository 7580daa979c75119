/** retry: the pure delivery schedule of spec 6.5 and the limits of spec 8.4. */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** spec 6.5 (3): the wait after attempt n (1-based) is RETRY_DELAYS_MS[n - 1]. */
export const RETRY_DELAYS_MS: readonly number[] = [
  30 * SECOND,
  2 * MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  1 * HOUR,
  2 * HOUR,
  4 * HOUR,
  8 * HOUR,
  8 * HOUR,
];

/** spec 8.4: attempts per delivery; the first attempt and one after each wait. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** spec 6.5 (1) and 8.4: an attempt that has no 2xx answer within this time has failed. */
export const TIMEOUT_MS = 10 * SECOND;

/** nextAttemptDelayMs gives the wait after `attemptsMade` failed attempts, or null once the delivery is `failed`. */
export function nextAttemptDelayMs(attemptsMade: number): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`attemptsMade must be a whole number of at least 1, not ${attemptsMade}`);
  }
  // spec 6.5 (3): if the 11th attempt fails, the delivery is not sent again.
  return RETRY_DELAYS_MS[attemptsMade - 1] ?? null;
}

/** nextAttemptAt gives when the next attempt is due, or null once the delivery is `failed`. */
export function nextAttemptAt(lastAttemptAt: Date, attemptsMade: number): Date | null {
  const delay = nextAttemptDelayMs(attemptsMade);
  // spec 6.5 (3): waits are counted from the previous attempt, not from the event.
  return delay === null ? null : new Date(lastAttemptAt.getTime() + delay);
}
