/** lib/serial-runner: one run at a time, a request while it runs makes one more run, and none is lost. */
import { expect, test } from "bun:test";
import { SerialRunner } from "../../src/lib/serial-runner";

/** afterMicrotasks calls `f` after `hops` turns of the microtask queue (at once for 0). */
function afterMicrotasks(hops: number, f: () => void): void {
  if (hops === 0) f();
  else queueMicrotask(() => afterMicrotasks(hops - 1, f));
}

/** settled lets every timer and microtask queued so far run. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

test("a request that comes any number of microtasks after the job's last step gets a run (no lost wake-up)", async () => {
  // Hop 1 lands between the loop's last check and a `.finally(() => running = null)` on its promise, where the worker's
  // old kick() dropped it; every hop must end in a second run, whether it is a rerun or a fresh run.
  for (let hops = 0; hops <= 4; hops++) {
    let runs = 0;
    const runner: SerialRunner = new SerialRunner({
      job: () => {
        runs += 1;
        const done = Promise.resolve();
        // Registered before the runner awaits `done`, so it runs first when the job ends.
        if (runs === 1) void done.then(() => afterMicrotasks(hops, () => void runner.run()));
        return done;
      },
      failed: (err) => {
        throw err;
      },
    });
    await runner.run();
    await settled();
    await runner.idle();
    expect({ hops, runs }).toEqual({ hops, runs: 2 });
  }
});

test("requests while the job runs fold into one run after it, and run() resolves after that run", async () => {
  let runs = 0;
  let release: () => void = () => {};
  const runner = new SerialRunner({
    job: async () => {
      runs += 1;
      if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
    },
    failed: (err) => {
      throw err;
    },
  });
  const first = runner.run();
  await settled();
  const asked = [runner.run(), runner.run(), runner.run()];
  expect(asked.every((p) => p === first)).toBe(true);
  release();
  await first;
  expect(runs).toBe(2);
  await runner.idle();
  expect(runs).toBe(2);
});

test("what the job throws, at once or later, goes to failed: run() resolves, nothing is left unhandled, and a request during a failed run still gets its rerun", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    const failures: string[] = [];
    let runs = 0;
    const runner: SerialRunner = new SerialRunner({
      job: () => {
        runs += 1;
        if (runs === 1) throw new Error("thrown at once");
        if (runs === 2) {
          void runner.run();
          return Promise.reject(new Error("rejected"));
        }
        return Promise.resolve();
      },
      failed: (err) => failures.push((err as Error).message),
    });
    await runner.run();
    expect([runs, failures]).toEqual([1, ["thrown at once"]]);
    await runner.run();
    expect([runs, failures]).toEqual([3, ["thrown at once", "rejected"]]);
    await settled();
    expect(unhandled).toEqual([]);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});

test("rerun false (stopping) drops the requests made while the job ran", async () => {
  let runs = 0;
  let stopping = false;
  const runner: SerialRunner = new SerialRunner({
    job: async () => {
      runs += 1;
      void runner.run();
      stopping = true;
    },
    failed: (err) => {
      throw err;
    },
    rerun: () => !stopping,
  });
  await runner.run();
  await runner.idle();
  expect(runs).toBe(1);
});
