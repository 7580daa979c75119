/** claim-loop: stopping while a round is claiming. The loop runs on a real SQLite store; its rows are the subclass's. */
import { expect, test } from "bun:test";
import pino from "pino";
import { ManualClock } from "../../src/lib/clock";
import type { Reads, Tx } from "../../src/store/store";
import { ClaimLoop } from "../../src/webhooks/claim-loop";
import { testStores } from "../store/engines";

const stores = testStores("claim-loop");

/** One due row; its claim takes a while (the round's transaction is under way), its attempt longer. */
class SlowLoop extends ClaimLoop<{ id: string }, string, string> {
  readonly recorded: string[] = [];
  claiming!: Promise<void>;
  private claimed = false;
  private inClaim!: () => void;

  constructor(options: ConstructorParameters<typeof ClaimLoop>[0]) {
    super(options);
    this.claiming = new Promise((resolve) => (this.inClaim = resolve));
  }

  protected async candidates(_db: Reads, limit: number, _busy: string[], lock: boolean) {
    if (this.claimed) return [];
    if (lock) {
      this.inClaim();
      await Bun.sleep(50);
    }
    return [{ id: "row_1" }].slice(0, limit);
  }
  protected async take(_tx: Tx, row: { id: string }) {
    this.claimed = true;
    return row.id;
  }
  protected keyOf() {
    return "one";
  }
  protected async attempt(job: string) {
    await Bun.sleep(100);
    return job;
  }
  protected async record(_tx: Tx, finished: string) {
    this.recorded.push(finished);
  }
}

test("stop() called while a round is claiming waits for the attempt that round starts, and writes its outcome", async () => {
  const store = await stores.open(await stores.place("sqlite"), new ManualClock(new Date("2026-03-10T10:00:00Z")));
  const loop = new SlowLoop({ store, log: pino({ level: "silent" }), what: "rows", channel: "webhook_deliveries", concurrency: 4, perKey: 4, pollMs: 60_000 });
  loop.start();
  await loop.claiming;
  await loop.stop();
  expect(loop.inFlight).toBe(0);
  expect(loop.recorded).toEqual(["row_1"]);
});
