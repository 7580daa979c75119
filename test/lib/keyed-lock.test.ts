import { describe, expect, test } from "bun:test";
import { KeyedLock } from "../../src/lib/keyed-lock";

describe("KeyedLock", () => {
  test("tasks of one key run one after another in order; a failure does not stop the next; other keys run freely", async () => {
    const lock = new KeyedLock();
    const seen: string[] = [];
    const step = (name: string, ms: number, fail = false) => async () => {
      seen.push(`${name}:start`);
      await Bun.sleep(ms);
      seen.push(`${name}:end`);
      if (fail) throw new Error(name);
      return name;
    };
    const a1 = lock.run("a", step("a1", 20, true));
    const a2 = lock.run("a", step("a2", 1));
    const b1 = lock.run("b", step("b1", 1));
    await expect(a1).rejects.toThrow("a1");
    expect(await a2).toBe("a2");
    expect(await b1).toBe("b1");
    expect(seen.indexOf("a2:start")).toBeGreaterThan(seen.indexOf("a1:end"));
    expect(seen.indexOf("b1:end")).toBeLessThan(seen.indexOf("a1:end"));
  });
});
