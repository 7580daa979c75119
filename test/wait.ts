/** wait: polling and rejection helpers shared by the tests that watch processes and timers. */

/** until polls `condition` every 20 ms until it holds, failing after `ms` (generous: CI machines are slow and shared). */
export async function until(condition: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(20);
  }
}

/** rejection answers the error a promise rejects with, failing when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a rejection");
}
