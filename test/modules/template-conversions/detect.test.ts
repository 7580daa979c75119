/** detect: which text is data (dates, amounts, e-mail addresses, document numbers), the names it gets, and which lines
 * form a table — tables of cases over runs made by hand. */
import { describe, expect, test } from "bun:test";
import { detect, fieldName, findValues, Names, tableCandidates } from "../../../src/modules/template-conversions/detect";
import type { TextRun } from "../../../src/modules/template-conversions/extract";

const run = (text: string, x: number, baseline: number, width = text.length * 5): TextRun => ({
  page: 0, x, baseline, width, fontSize: 10, fontFamily: "sans-serif", bold: false, italic: false, color: "#000000", ascent: 0.9, descent: -0.2, text,
});

describe("findValues", () => {
  test.each([
    ["Issued: 2026-03-10", [["date", "2026-03-10"]]],
    ["Due 09/04/2026", [["date", "09/04/2026"]]],
    ["March 10, 2026", [["date", "March 10, 2026"]]],
    ["10 Mar 2026", [["date", "10 Mar 2026"]]],
    ["Total: $2,283.50", [["amount", "$2,283.50"]]],
    ["1.234,50 €", [["amount", "1.234,50 €"]]],
    ["EUR 99.00", [["amount", "EUR 99.00"]]],
    ["1\u202f234,50 €", [["amount", "1\u202f234,50 €"]]],
    ["Pay 2 100.00", [["amount", "100.00"]]],
    ["write to accounts@northwind.example today", [["email", "accounts@northwind.example"]]],
    ["Invoice INV-2026-0042", [["reference", "INV-2026-0042"]]],
    ["Order #10042", [["reference", "#10042"]]],
    ["Payment within 30 days.", []],
    ["Thank you", []],
  ] as const)("%s", (text, expected) => {
    expect(findValues(text).map((v) => [v.kind, text.slice(v.start, v.end)])).toEqual(expected.map((e) => [...e]));
  });
});

describe("names", () => {
  test.each([
    ["Invoice number", "x", "invoiceNumber"],
    ["Total due", "x", "totalDue"],
    ["  ", "amount", "amount"],
    ["The amount you owe us by the end", "x", "usByTheEnd"],
    ["2026", "date", "date"],
  ])("fieldName(%p) is %p", (label, fallback, expected) => expect(fieldName(label, fallback)).toBe(expected));

  test("Names numbers a name already handed out, and skips a numbered form taken as a name of its own", () => {
    const names = new Names();
    expect([names.take("date"), names.take("date2"), names.take("date"), names.take("date")]).toEqual(["date", "date2", "date3", "date4"]);
  });
});

describe("detect", () => {
  test("a labelled value becomes a field named after its label; a value alone takes the label on its left", () => {
    const found = detect([run("Invoice number: INV-7", 10, 20), run("Email", 10, 40, 25), run("ann@example.test", 100, 40)]);
    expect(found.fields.map((f) => [f.name, f.value])).toEqual([
      ["invoiceNumber", "INV-7"],
      ["email", "ann@example.test"],
    ]);
    expect(found.blocks[0]!.pieces).toEqual(["Invoice number: ", { field: "invoiceNumber" }]);
    expect(found.blocks[2]!.pieces).toEqual([{ field: "email" }]);
  });

  test("aligned lines with amounts at a steady pitch are a table, named by its header; a right-aligned column is told apart", () => {
    const lines = [
      [run("Item", 10, 100), run("Qty", 200, 100), run("Amount", 300, 100)],
      [run("Paper", 10, 120), run("2", 200, 120), run("$10.00", 310, 120, 30)],
      [run("Ink", 10, 140), run("1", 200, 140), run("$100.00", 305, 140, 35)],
      [run("Total: $110.00", 10, 180)],
    ].flat();
    const found = detect(lines);
    expect(found.tables).toHaveLength(1);
    const table = found.tables[0]!;
    expect(table.name).toBe("items");
    expect(table.pitch).toBe(20);
    expect(table.columns.map((c) => [c.name, c.align])).toEqual([["item", "left"], ["qty", "left"], ["amount", "right"]]);
    expect(table.rows.map((r) => r.map((c) => c.text))).toEqual([["Paper", "2", "$10.00"], ["Ink", "1", "$100.00"]]);
    // The header stays fixed text; the total is a field.
    expect(found.blocks.map((b) => b.run.text)).toEqual(["Item", "Qty", "Amount", "Total: $110.00"]);
    expect(found.fields).toEqual([{ name: "total", value: "$110.00", kind: "amount", label: "Total" }]);
  });

  test("lines at an uneven pitch, or with cells that do not align, are no table", () => {
    const uneven = [run("A", 10, 100), run("1.00", 200, 100), run("B", 10, 120), run("2.00", 200, 120), run("C", 10, 160), run("3.00", 200, 160)];
    expect(detect(uneven).tables[0]!.rows).toHaveLength(2);
    const ragged = [run("A", 10, 100), run("1.00", 200, 100), run("B", 10, 120), run("2.00", 260, 120, 20)];
    expect(detect(ragged).tables).toEqual([]);
  });

  describe("groups a model names", () => {
    // Rows without a number or an amount: the offline detector sees no table here.
    const team = [
      run("Team", 10, 20),
      [run("Name", 10, 50), run("Role", 200, 50)],
      [run("Ann Lee", 10, 70), run("Writer", 200, 70)],
      [run("Bo Chen", 10, 90), run("Editor", 200, 90)],
      [run("Cy Diaz", 10, 110), run("Designer", 200, 110)],
    ].flat();

    test("tableCandidates lists the lines of two or more cells by index", () => {
      expect(tableCandidates(team).map((l) => l.index)).toEqual([1, 2, 3, 4]);
      expect(tableCandidates(team)[1]).toEqual({ index: 2, cells: ["Ann Lee", "Writer"] });
    });

    test("a group of aligned consecutive lines is a table, with the header above it", () => {
      expect(detect(team).tables).toEqual([]);
      const table = detect(team, [[2, 3, 4]]).tables[0]!;
      expect(table.columns.map((c) => c.name)).toEqual(["name", "role"]);
      expect(table.rows.map((r) => r[0]!.text)).toEqual(["Ann Lee", "Bo Chen", "Cy Diaz"]);
    });

    test.each([
      ["not consecutive", [[2, 4]]],
      ["one line", [[2]]],
      ["a line of one cell", [[0, 1]]],
      ["out of range", [[4, 5]]],
      ["not whole numbers", [[2.5, 3.5]]],
    ])("a group %s is ignored", (_, groups) => {
      expect(detect(team, groups).tables).toEqual([]);
    });
  });
});
