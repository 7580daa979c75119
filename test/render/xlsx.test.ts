import { describe, expect, test } from "bun:test";
import ExcelJS from "exceljs";
import { ApiError } from "../../src/errors";
import type { SheetDefinition } from "../../src/render/sheets";
import { excelNumFmt } from "../../src/render/xlsx-cells";
import { fillWorkbook } from "../../src/render/xlsx-fill";
import { buildSheetsWorkbook, sheetProblems } from "../../src/render/xlsx-sheets";

const { ValueType } = ExcelJS;

async function load(bytes: Uint8Array): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(bytes) as unknown as ExcelJS.Buffer);
  return workbook;
}

async function bytesOf(workbook: ExcelJS.Workbook): Promise<Uint8Array> {
  return new Uint8Array((await workbook.xlsx.writeBuffer()) as ArrayBuffer);
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected an ApiError");
}

const orders = {
  company: "ACME",
  orders: [
    { id: "A-1", total: 1234.5, paid: true, due: "2026-01-31", at: "2026-01-31T23:30:00Z", rate: 0.2, customer: { name: "Ada" }, lines: [1] },
    { id: "A-2", total: "99.90", paid: false, due: "not a date", customer: null },
  ],
};

const ordersSheet: SheetDefinition = {
  name: "Orders",
  source: ["orders"],
  columns: [
    { header: "Order", value: { path: ["id"] }, width: 12 },
    { header: "Total", value: { path: ["total"], format: { type: "currency", currency: "EUR" } } },
    { header: "Paid", value: { path: ["paid"] } },
    { header: "Due", value: { path: ["due"], format: { type: "date", dateStyle: "short" } } },
    { header: "Customer", value: { path: ["customer", "name"], fallback: "—" } },
    { header: "Lines", value: { path: ["lines"] } },
    { header: "Company", value: { path: ["company"], scope: "root" } },
    { header: "Label", value: { path: ["id"], prefix: "#", suffix: "!" } },
    { header: "Rate", value: { path: ["rate"], format: { type: "percent", maximumFractionDigits: 1 } }, numFmt: "0.0%" },
    { header: "At", value: { path: ["at"], format: { type: "date", timeZone: "Europe/Berlin" } } },
  ],
};

describe("buildSheetsWorkbook", () => {
  test("cells keep their types; formats become number formats; the header row is bold and frozen", async () => {
    const workbook = await load(await buildSheetsWorkbook(orders, [ordersSheet]));
    const sheet = workbook.getWorksheet("Orders")!;
    expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    expect(sheet.getRow(1).values).toEqual([undefined, "Order", "Total", "Paid", "Due", "Customer", "Lines", "Company", "Label", "Rate", "At"] as any);
    sheet.getRow(1).eachCell((cell) => expect(cell.font?.bold).toBe(true));
    expect(sheet.getColumn(1).width).toBe(12);

    const first = sheet.getRow(2);
    expect(first.getCell(1).value).toBe("A-1");
    expect(first.getCell(2).value).toBe(1234.5);
    expect(first.getCell(2).type).toBe(ValueType.Number);
    expect(first.getCell(2).numFmt).toBe('"€"#,##0.00');
    expect(first.getCell(3).value).toBe(true);
    expect(first.getCell(3).type).toBe(ValueType.Boolean);
    expect(first.getCell(4).type).toBe(ValueType.Date);
    expect((first.getCell(4).value as Date).toISOString()).toBe("2026-01-31T00:00:00.000Z");
    expect(first.getCell(4).numFmt).toBe("yyyy-mm-dd");
    expect(first.getCell(5).value).toBe("Ada");
    expect(first.getCell(6).type).toBe(ValueType.Null);
    expect(first.getCell(7).value).toBe("ACME");
    expect(first.getCell(8).value).toBe("#A-1!");
    expect(first.getCell(9).value).toBe(0.2);
    expect(first.getCell(9).numFmt).toBe("0.0%");
    // 23:30 UTC is 00:30 the next day in Berlin: the cell shows Berlin's wall clock.
    expect((first.getCell(10).value as Date).toISOString()).toBe("2026-02-01T00:30:00.000Z");

    const second = sheet.getRow(3);
    expect(second.getCell(2).value).toBe(99.9);
    expect(second.getCell(4).value).toBe("not a date");
    expect(second.getCell(5).value).toBe("—");
    expect(second.getCell(10).type).toBe(ValueType.Null);
    expect(sheet.rowCount).toBe(3);
  });

  test("a title goes above the header, which is then the frozen second row", async () => {
    const sheet = (await load(await buildSheetsWorkbook(orders, [{ ...ordersSheet, title: "Orders of March" }]))).getWorksheet("Orders")!;
    expect(sheet.getCell("A1").value).toBe("Orders of March");
    expect(sheet.getCell("A1").font).toMatchObject({ bold: true, size: 14 });
    expect(sheet.getCell("A2").value).toBe("Order");
    expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 2 });
    expect(sheet.getCell("A3").value).toBe("A-1");
  });

  test("several sheets; a missing or null source is a sheet with its header only", async () => {
    const workbook = await load(
      await buildSheetsWorkbook(orders, [
        ordersSheet,
        { name: "Empty", source: ["nothing", "here"], columns: [{ header: "X", value: { path: ["x"] } }] },
      ]),
    );
    expect(workbook.worksheets.map((s) => s.name)).toEqual(["Orders", "Empty"]);
    expect(workbook.getWorksheet("Empty")!.rowCount).toBe(1);
  });

  test("a source that is not an array is DATA_INVALID at its data pointer", async () => {
    const error = await failure(buildSheetsWorkbook({ orders: { a: 1 } }, [ordersSheet]));
    expect(error.code).toBe("DATA_INVALID");
    expect(error.details).toEqual([{ path: "/data/orders", message: "must be an array (the source of sheet 0)" }]);
  });

  test("over the cell budget is LIMIT_EXCEEDED before anything is built", async () => {
    const data = { orders: Array.from({ length: 11 }, (_, i) => ({ id: i })) };
    const error = await failure(buildSheetsWorkbook(data, [ordersSheet], { maxCells: 100 }));
    expect(error.code).toBe("LIMIT_EXCEEDED");
    expect(error.status).toBe(413);
    expect(await buildSheetsWorkbook({ orders: data.orders.slice(1) }, [ordersSheet], { maxCells: 100 })).toBeInstanceOf(Uint8Array);
  });

  test("text longer than a cell holds is DATA_INVALID at the value", async () => {
    const error = await failure(buildSheetsWorkbook({ orders: [{ id: "ok" }, { id: "x".repeat(32_768) }] }, [ordersSheet]));
    expect(error.code).toBe("DATA_INVALID");
    expect(error.details?.[0]?.path).toBe("/data/orders/1/id");
  });

  test("duplicate and reserved names and refused formats are BAD_REQUEST with pointers", async () => {
    const bad: SheetDefinition[] = [
      ordersSheet,
      { ...ordersSheet, name: "ORDERS" },
      { ...ordersSheet, name: "History" },
      { name: "Fmt", source: ["orders"], columns: [{ header: "x", value: { path: ["x"], format: { type: "currency" } } }] },
    ];
    expect(sheetProblems(bad)).toEqual([
      { path: "/sheets/1/name", message: "another sheet has this name (Excel ignores case)" },
      { path: "/sheets/2/name", message: '"History" is reserved by Excel' },
      { path: "/sheets/3/columns/0/value/format", message: "currency is required with format type currency" },
    ]);
    const error = await failure(buildSheetsWorkbook(orders, bad));
    expect(error.code).toBe("BAD_REQUEST");
  });
});

describe("excelNumFmt", () => {
  const cases: [Parameters<typeof excelNumFmt>[0], string | undefined][] = [
    [undefined, undefined],
    [{ type: "number" }, undefined],
    [{ type: "number", maximumFractionDigits: 2 }, "#,##0.00"],
    [{ type: "number", minimumFractionDigits: 1, maximumFractionDigits: 3 }, "#,##0.0##"],
    [{ type: "number", maximumFractionDigits: 0 }, "#,##0"],
    [{ type: "percent" }, "0%"],
    [{ type: "percent", minimumFractionDigits: 2 }, "0.00%"],
    [{ type: "currency", currency: "USD" }, '"$"#,##0.00'],
    [{ type: "currency", currency: "JPY" }, '"¥"#,##0'],
    [{ type: "currency", currency: "EUR", locale: "de-DE" }, '#,##0.00 "€"'],
    [{ type: "date" }, "d mmm yyyy"],
    [{ type: "date", dateStyle: "short" }, "yyyy-mm-dd"],
    [{ type: "date", dateStyle: "long" }, "d mmmm yyyy"],
    [{ type: "date", dateStyle: "full" }, "dddd, d mmmm yyyy"],
  ];
  for (const [format, expected] of cases) {
    test(JSON.stringify(format) ?? "none", () => expect(excelNumFmt(format)).toBe(expected));
  }
});

/** invoiceTemplate is a workbook asset with placeholders, a styled repeated block with a merge, and rows below it. */
async function invoiceTemplate(): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet("Invoice", { views: [{ state: "frozen", ySplit: 1 }] });
  sheet.getCell("A1").value = "Invoice {{number}} for {{customer.name}}";
  sheet.getCell("B1").value = "{{total}}";
  sheet.getCell("C1").value = "{{issued | date}}";
  sheet.getCell("D1").value = "{{paid}}";
  sheet.getCell("E1").value = "{{missing ?? none}}";
  sheet.getCell("F1").value = "{{total | currency EUR}}";
  sheet.getCell("F1").numFmt = "0.000";
  sheet.getCell("A2").value = "{{#each items}}";
  sheet.getCell("B2").value = "marker rows vanish with everything in them";
  sheet.getCell("A3").value = "{{name}}";
  sheet.getCell("A3").font = { italic: true, color: { argb: "FF0000FF" } };
  sheet.getCell("B3").value = "{{price}}";
  sheet.getCell("B3").numFmt = "0.00";
  sheet.getCell("B3").fill = { type: "pattern", pattern: "solid", fgColor: { argb: "FFFFFF00" } };
  sheet.getCell("C3").value = "{{$root.currency}} {{price | number 1}}";
  sheet.mergeCells("C3:D3");
  sheet.getRow(3).height = 30;
  sheet.getCell("A4").value = "{{qty}} ×";
  sheet.getCell("A5").value = "{{/each}}";
  sheet.getCell("A6").value = "Total";
  sheet.getCell("A6").font = { bold: true };
  sheet.getCell("B6").value = "{{total | currency EUR}}";
  sheet.mergeCells("A7:B8");
  sheet.getCell("A7").value = {
    richText: [
      { text: "Thanks, ", font: { bold: true } },
      { text: "{{customer.name}}", font: { italic: true } },
    ],
  };
  workbook.addWorksheet("Plain").getCell("A1").value = "no placeholders";
  return bytesOf(workbook);
}

const invoice = {
  number: 7,
  customer: { name: "Ada" },
  total: 12.5,
  issued: "2026-03-01",
  paid: false,
  currency: "EUR",
  items: [
    { name: "Pen", price: 1.5, qty: 2 },
    { name: "Ink", price: "3", qty: 1 },
    { name: "Pad", price: 8 },
  ],
};

describe("fillWorkbook", () => {
  test("fills placeholders, keeping the type of a cell that is one placeholder", async () => {
    const sheet = (await load(await fillWorkbook(await invoiceTemplate(), invoice))).getWorksheet("Invoice")!;
    expect(sheet.getCell("A1").value).toBe("Invoice 7 for Ada");
    expect(sheet.getCell("B1").value).toBe(12.5);
    expect(sheet.getCell("B1").type).toBe(ValueType.Number);
    expect(sheet.getCell("C1").type).toBe(ValueType.Date);
    expect((sheet.getCell("C1").value as Date).toISOString()).toBe("2026-03-01T00:00:00.000Z");
    expect(sheet.getCell("C1").numFmt).toBe("d mmm yyyy");
    expect(sheet.getCell("D1").value).toBe(false);
    expect(sheet.getCell("E1").value).toBe("none");
    // The template cell's own number format wins over the placeholder's.
    expect(sheet.getCell("F1").value).toBe(12.5);
    expect(sheet.getCell("F1").numFmt).toBe("0.000");
    expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
  });

  test("repeats the rows between the markers once per item, with their styles, heights and merges", async () => {
    const sheet = (await load(await fillWorkbook(await invoiceTemplate(), invoice))).getWorksheet("Invoice")!;
    // Rows 2–5 of the template (markers and a 2-row body) become 3 items × 2 rows at rows 2–7.
    const names = [2, 4, 6].map((r) => sheet.getCell(`A${r}`).value);
    expect(names).toEqual(["Pen", "Ink", "Pad"]);
    expect([3, 5, 7].map((r) => sheet.getCell(`A${r}`).value)).toEqual(["2 ×", "1 ×", " ×"]);
    for (const r of [2, 4, 6]) {
      expect(sheet.getCell(`A${r}`).font).toMatchObject({ italic: true, color: { argb: "FF0000FF" } });
      expect(sheet.getCell(`B${r}`).numFmt).toBe("0.00");
      expect(sheet.getCell(`B${r}`).fill).toMatchObject({ type: "pattern", pattern: "solid", fgColor: { argb: "FFFFFF00" } });
      expect(sheet.getRow(r).height).toBe(30);
      expect(sheet.getCell(`D${r}`).isMerged).toBe(true);
      expect(sheet.getCell(`D${r}`).master.address).toBe(`C${r}`);
    }
    expect(sheet.getCell("B2").value).toBe(1.5);
    // A one-placeholder cell keeps the data's type: "3" was sent as a string.
    expect(sheet.getCell("B4").value).toBe("3");
    expect(sheet.getCell("C2").value).toBe("EUR 1.5");
    expect(sheet.getCell("C4").value).toBe("EUR 3.0");

    // The rows below moved down by 2 (6 rows of copies where 4 template rows were), merges with them.
    expect(sheet.getCell("A8").value).toBe("Total");
    expect(sheet.getCell("A8").font).toMatchObject({ bold: true });
    expect(sheet.getCell("B8").value).toBe(12.5);
    expect(sheet.getCell("B8").numFmt).toBe('"€"#,##0.00');
    expect(sheet.getCell("B9").isMerged).toBe(true);
    expect(sheet.getCell("B10").master.address).toBe("A9");
    expect(sheet.getCell("A9").value).toEqual({
      richText: [
        { text: "Thanks, ", font: { bold: true } },
        { text: "Ada", font: { italic: true } },
      ],
    });
    expect(JSON.stringify(sheet.getSheetValues())).not.toContain("{{");
    expect(JSON.stringify(sheet.getSheetValues())).not.toContain("marker rows vanish");
  });

  test("formulas are kept as written", async () => {
    const template = new ExcelJS.Workbook();
    const sheet = template.addWorksheet("S");
    sheet.getCell("A1").value = "{{a}}";
    sheet.getCell("B1").value = { formula: "A1*2", result: 0 } as ExcelJS.CellFormulaValue;
    const bytes = await fillWorkbook(await bytesOf(template), { a: 21 });
    expect(new TextDecoder().decode(bytes.subarray(0, 2))).toBe("PK");
    const filled = await load(bytes);
    expect(filled.getWorksheet("S")!.getCell("B1").formula).toBe("A1*2");
  });

  test("no items removes the block; other sheets are kept", async () => {
    const workbook = await load(await fillWorkbook(await invoiceTemplate(), { ...invoice, items: [] }));
    const sheet = workbook.getWorksheet("Invoice")!;
    expect(sheet.getCell("A2").value).toBe("Total");
    expect(sheet.getCell("A3").isMerged).toBe(true);
    expect(workbook.getWorksheet("Plain")!.getCell("A1").value).toBe("no placeholders");
  });

  async function single(cells: Record<string, string>): Promise<Uint8Array> {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet("S");
    for (const [address, value] of Object.entries(cells)) sheet.getCell(address).value = value;
    return bytesOf(workbook);
  }

  const invalid: [string, Record<string, string>, string][] = [
    ["a bad placeholder", { B2: "x {{a | money}}" }, 'sheet "S" cell B2: unknown format "money"; use number, currency, percent or date at offset 8'],
    ["an unclosed block", { A1: "{{#each items}}" }, 'sheet "S" cell A1: {{#each}} without a {{/each}} below it'],
    ["a close without an open", { A3: "{{/each}}" }, 'sheet "S" cell A3: {{/each}} without a {{#each}} above it'],
    ["nested blocks", { A1: "{{#each a}}", A2: "{{#each b}}", A3: "{{/each}}", A4: "{{/each}}" }, 'sheet "S" cell A2: {{#each}} inside the repeated rows of A1 (nesting is not supported)'],
    ["a bad block path", { A1: "{{#each a b}}", A2: "{{/each}}" }, 'sheet "S" cell A1: unexpected character " " in path at offset 9'],
  ];
  for (const [name, cells, message] of invalid) {
    test(`${name} is ASSET_INVALID at /workbookAssetId`, async () => {
      const error = await failure(fillWorkbook(await single(cells), { items: [] }));
      expect(error.code).toBe("ASSET_INVALID");
      expect(error.details).toEqual([{ path: "/workbookAssetId", message }]);
    });
  }

  test("a merge across the markers is ASSET_INVALID", async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet("S");
    sheet.getCell("A1").value = "{{#each items}}";
    sheet.getCell("A3").value = "{{/each}}";
    sheet.mergeCells("B2:B4");
    const error = await failure(fillWorkbook(await bytesOf(workbook), { items: [1] }));
    expect(error.details?.[0]?.message).toBe('sheet "S": merged cells B2:B4 cross the repeated rows 1–3');
  });

  test("a block over a value that is not an array is DATA_INVALID", async () => {
    const error = await failure(fillWorkbook(await single({ A1: "{{#each items}}", A2: "{{/each}}" }), { items: "no" }));
    expect(error.code).toBe("DATA_INVALID");
    expect(error.details?.[0]?.path).toBe("/data/items");
  });

  test("bytes that are no workbook are ASSET_INVALID", async () => {
    const error = await failure(fillWorkbook(new TextEncoder().encode("not a zip"), {}));
    expect(error.code).toBe("ASSET_INVALID");
    expect(error.details?.[0]?.path).toBe("/workbookAssetId");
  });

  test("the cells written after repeating count against the budget", async () => {
    const template = await single({ A1: "{{#each items}}", A2: "{{.}}", B2: "{{.}}", A3: "{{/each}}" });
    const items = Array.from({ length: 50 }, (_, i) => i);
    expect(await fillWorkbook(template, { items }, { maxCells: 100 })).toBeInstanceOf(Uint8Array);
    const error = await failure(fillWorkbook(template, { items: [...items, 50] }, { maxCells: 100 }));
    expect(error.code).toBe("LIMIT_EXCEEDED");
  });

  test("{{.}} is the item of a list of scalars", async () => {
    const sheet = (await load(await fillWorkbook(await single({ A1: "{{#each tags}}", A2: "{{.}}", A3: "{{/each}}" }), { tags: ["x", 2] }))).getWorksheet("S")!;
    expect([sheet.getCell("A1").value, sheet.getCell("A2").value]).toEqual(["x", 2]);
  });
});
