import { describe, expect, test } from "bun:test";
import { isIdentifier, newId, randomBase62 } from "../../src/lib/ids";

describe("newId", () => {
  test("is a prefixed spec Identifier of fixed length", () => {
    const id = newId("key");
    expect(id).toMatch(/^key_[0-9A-Za-z]{22}$/);
    expect(isIdentifier(id)).toBe(true);
  });

  test("ids made later sort later, also within one millisecond", () => {
    const ids = Array.from({ length: 5000 }, () => newId("aud"));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("randomBase62", () => {
  test("gives the asked length from the base62 alphabet, covering all of it", () => {
    const s = randomBase62(20000);
    expect(s).toMatch(/^[0-9A-Za-z]{20000}$/);
    expect(new Set(s).size).toBe(62);
  });
});

describe("isIdentifier", () => {
  test.each([
    ["a", true],
    ["A-b_c9", true],
    ["-a", false],
    ["_a", false],
    ["", false],
    ["a b", false],
    ["x".repeat(128), true],
    ["x".repeat(129), false],
  ])("%s → %p", (value, ok) => {
    expect(isIdentifier(value)).toBe(ok);
  });
});
