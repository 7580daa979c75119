import { describe, expect, test } from "bun:test";
import { fillFilename, fillPlaceholders } from "../../src/destinations/placeholders";
import { keepMasked, MASK, maskConfig, splitSecrets } from "../../src/destinations/settings";

const values = { data: { number: "2026-0042", customer: { name: "ACME" }, lines: [1, 2], total: 12.5, paid: false }, metadata: { order: 7 }, renderId: "rnd_1" };

describe("fillPlaceholders", () => {
  test("fills scalars from data, metadata and the render id, spaces inside the braces allowed", () => {
    expect(fillPlaceholders("Invoice {{data.number}} for {{ data.customer.name }} ({{metadata.order}}, {{renderId}})", values)).toBe("Invoice 2026-0042 for ACME (7, rnd_1)");
    expect(fillPlaceholders("{{data.total}} {{data.paid}}", values)).toBe("12.5 false");
  });

  test("a missing path, an object or an array gives empty text; inherited properties are not read", () => {
    expect(fillPlaceholders("[{{data.nope.deeper}}|{{data.customer}}|{{data.lines}}|{{data.constructor}}]", values)).toBe("[|||]");
  });
});

describe("fillFilename", () => {
  test("separators and control characters become -; an empty name falls back to the render id", () => {
    expect(fillFilename("{{data.customer.name}}/../{{data.number}}\n.pdf", { ...values, data: { customer: { name: "A/B" }, number: "1" } })).toBe("A-B-..-1-.pdf");
    expect(fillFilename("{{data.none}}", values)).toBe("rnd_1.pdf");
  });
});

describe("credentials", () => {
  test("split, mask (a header keeps its name) and keep a masked value sent back", () => {
    const { plain, secrets } = splitSecrets("http", { url: "https://x.example", method: "PUT", headers: { authorization: "Bearer t", "x-a": "1" } });
    expect(plain).toEqual({ url: "https://x.example", method: "PUT" });
    expect(maskConfig(plain, secrets)).toEqual({ url: "https://x.example", method: "PUT", headers: { authorization: MASK, "x-a": MASK } });
    const stored = { ...plain, ...secrets };
    expect(keepMasked(stored, { ...plain, headers: { authorization: MASK, "x-a": "2", "x-b": MASK } }).headers).toEqual({ authorization: "Bearer t", "x-a": "2", "x-b": MASK });
    expect(keepMasked({ password: "p" }, { password: MASK }).password).toBe("p");
  });
});
