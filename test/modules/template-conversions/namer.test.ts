/** namer: a model's names are put in only where they are valid, fresh property names. */
import { describe, expect, test } from "bun:test";
import { detect } from "../../../src/modules/template-conversions/detect";
import type { TextRun } from "../../../src/modules/template-conversions/extract";
import { applyNames } from "../../../src/modules/template-conversions/namer";

const run = (text: string, x: number, baseline: number): TextRun => ({
  page: 0, x, baseline, width: text.length * 5, fontSize: 10, fontFamily: "sans-serif", bold: false, italic: false, color: "#000000", ascent: 0.9, descent: -0.2, text,
});

const found = detect([run("Issued: 2026-03-10", 10, 10), run("Due: 2026-04-09", 10, 30), run("A", 10, 60), run("1.00", 100, 60), run("B", 10, 80), run("2.00", 100, 80)]);

describe("applyNames", () => {
  test("renames fields and their references, the table and its columns", () => {
    const named = applyNames(found, { fields: { issued: "issueDate" }, tables: { items: { name: "lines", columns: { column2: "price" } } } });
    expect(named.fields.map((f) => f.name)).toEqual(["issueDate", "due"]);
    expect(named.blocks[0]!.pieces).toEqual(["Issued: ", { field: "issueDate" }]);
    expect(named.tables[0]!.name).toBe("lines");
    expect(named.tables[0]!.columns.map((c) => c.name)).toEqual(["column1", "price"]);
  });

  test.each([
    ["not an identifier", { fields: { issued: "issue date" } }],
    ["a name another field has", { fields: { issued: "due" } }],
    ["a name given twice", { fields: { issued: "date", due: "date" } }],
    ["not a string", { fields: { issued: 42 } }],
  ])("ignores %s", (_, answer) => {
    const named = applyNames(found, answer as never);
    expect(new Set(named.fields.map((f) => f.name)).size).toBe(2);
    expect(named.fields.every((f) => /^[A-Za-z][A-Za-z0-9_]*$/.test(f.name))).toBe(true);
    expect(named.fields[1]!.name).toBe("due");
  });
});
