import { describe, expect, test } from "bun:test";
import { MAX_DATA_PROBLEMS, itemSchemas, schemasAt, validateData } from "../../../src/render/compile/data";
import type { DataSchema } from "../../../src/render/compile/model";

const invoice: DataSchema = {
  type: "object",
  required: ["customer", "items"],
  properties: {
    customer: {
      type: "object",
      required: ["name"],
      properties: { name: { type: "string" }, vat: { type: ["string", "null"] } },
    },
    status: { anyOf: [{ const: "draft" }, { const: "sent" }] },
    items: {
      type: "array",
      items: { type: "object", required: ["price"], properties: { price: { type: "number" }, tags: { items: { type: "string" } } } },
    },
    "a/b~c": { type: "boolean" },
  },
};

const good = { customer: { name: "Ada", vat: null }, status: "sent", items: [{ price: 1 }, { price: 2.5, tags: ["x"] }] };

describe("validateData", () => {
  const cases: [string, DataSchema, unknown, { path: string; message: string }[]][] = [
    ["valid data", invoice, good, []],
    ["extra properties are allowed", invoice, { ...good, other: 1 }, []],
    ["integers are numbers", { type: "number" }, 3, []],
    ["a wrong type in an item", invoice, { ...good, items: [{ price: 1 }, { price: 1 }, { price: 1 }, { price: "9" }] }, [
      { path: "/items/3/price", message: "must be a number" },
    ]],
    ["a missing required property", invoice, { ...good, customer: {} }, [{ path: "/customer/name", message: "is required" }]],
    ["missing at the root", invoice, {}, [
      { path: "/customer", message: "is required" },
      { path: "/items", message: "is required" },
    ]],
    ["a list of types", invoice, { ...good, customer: { name: "A", vat: 3 } }, [
      { path: "/customer/vat", message: "must be a string or null" },
    ]],
    ["the root type", invoice, [], [{ path: "", message: "must be an object" }]],
    ["an array is not an object", { type: "object" }, [1], [{ path: "", message: "must be an object" }]],
    ["null is its own type", { type: "string" }, null, [{ path: "", message: "must be a string" }]],
    ["boolean", { type: "boolean" }, "true", [{ path: "", message: "must be a boolean" }]],
    ["array", { type: "array" }, {}, [{ path: "", message: "must be an array" }]],
    ["null", { type: "null" }, 0, [{ path: "", message: "must be null" }]],
    ["const", { const: "EUR" }, "USD", [{ path: "", message: 'must be "EUR"' }]],
    ["anyOf matched", invoice, { ...good, status: "draft" }, []],
    ["anyOf unmatched", invoice, { ...good, status: "paid" }, [{ path: "/status", message: "must match one of the schemas in anyOf" }]],
    ["items without type", invoice, { ...good, items: [{ price: 1, tags: ["a", 2] }] }, [
      { path: "/items/0/tags/1", message: "must be a string" },
    ]],
    ["pointer escaping", invoice, { ...good, "a/b~c": "yes" }, [{ path: "/a~1b~0c", message: "must be a boolean" }]],
  ];
  test.each(cases)("%s", (_name, schema, data, problems) => {
    expect(validateData(schema, data)).toEqual(problems);
  });

  test("paths start below `at`", () => {
    expect(validateData(invoice, { ...good, customer: { name: 1 } }, "/data")).toEqual([
      { path: "/data/customer/name", message: "must be a string" },
    ]);
  });

  test("a huge bad payload answers at most MAX_DATA_PROBLEMS problems", () => {
    const items = Array.from({ length: 10_000 }, () => ({ price: "x" }));
    const problems = validateData(invoice, { ...good, items });
    expect(problems).toHaveLength(MAX_DATA_PROBLEMS);
    expect(problems[0]).toEqual({ path: "/items/0/price", message: "must be a number" });
  });
});

describe("schemasAt", () => {
  const cases: [string, string[], boolean][] = [
    ["a property", ["customer", "name"], true],
    ["an array index then a property", ["items", "0", "price"], true],
    ["an unknown property", ["customer", "nmae"], false],
    ["a property of a scalar", ["customer", "name", "first"], false],
    ["a non-index into an array", ["items", "first"], false],
    ["a prototype name", ["constructor"], false],
    ["through anyOf", ["status"], true],
  ];
  test.each(cases)("%s", (_name, path, found) => {
    expect(schemasAt([invoice], path).length > 0).toBe(found);
  });

  test("anyOf branches are walked in turn", () => {
    const schema: DataSchema = {
      anyOf: [{ properties: { a: { type: "string" } } }, { properties: { b: { properties: { c: { type: "number" } } } } }],
    };
    expect(schemasAt([schema], ["a"])).toEqual([{ type: "string" }]);
    expect(schemasAt([schema], ["b", "c"])).toEqual([{ type: "number" }]);
    expect(schemasAt([schema], ["c"])).toEqual([]);
  });

  test("itemSchemas answers the element schemas of arrays", () => {
    expect(itemSchemas(schemasAt([invoice], ["items"]))).toEqual([invoice.properties!.items.items!]);
    expect(itemSchemas([{ type: "string" }])).toEqual([]);
  });
});
