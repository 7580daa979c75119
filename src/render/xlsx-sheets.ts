/** xlsx-sheets: a new workbook from sheet definitions — one worksheet per definition, one row per item of its source list. */
import ExcelJS from "exceljs";
import { PassThrough } from "node:stream";
import { ApiError, type ErrorDetail } from "../errors";
import type { SheetDefinition } from "./sheets";
import { FormatterCache, formatProblem } from "./compile/format";
import { pointer } from "./compile/pointer";
import type { Scopes } from "./compile/values";
import { cellValue, excelNumFmt, listAt, MAX_CELL_TEXT, MAX_REPORT_CELLS, overBudget, type XlsxOptions } from "./xlsx-cells";

// Excel refuses these names whatever the characters (it keeps "History" for change tracking).
const RESERVED_SHEET_NAMES = new Set(["history"]);
function tooLong(path: string): ApiError {
  return new ApiError("DATA_INVALID", "The data does not fit in an Excel cell.", {
    details: [{ path, message: `is longer than ${MAX_CELL_TEXT} characters, the most an Excel cell holds` }],
  });
}

async function bytesOf(write: (stream: PassThrough) => Promise<void>): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    stream.on("end", resolve);
    stream.on("error", reject);
  });
  await write(stream);
  await ended;
  return new Uint8Array(Buffer.concat(chunks));
}

const ROWS_PER_TURN = 100;
const ROWS_PER_COLLECTION = 1_000;

/** sheetProblems lists what is wrong in sheet definitions beyond their schema (duplicate or reserved names, formats
 * Intl refuses), with pointers below `at`. */
export function sheetProblems(sheets: SheetDefinition[], at = "/sheets"): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const names = new Set<string>();
  sheets.forEach((sheet, i) => {
    const name = sheet.name.toLowerCase();
    if (RESERVED_SHEET_NAMES.has(name)) problems.push({ path: pointer(at, i, "name"), message: `${JSON.stringify(sheet.name)} is reserved by Excel` });
    else if (names.has(name)) problems.push({ path: pointer(at, i, "name"), message: "another sheet has this name (Excel ignores case)" });
    names.add(name);
    sheet.columns.forEach((column, j) => {
      const problem = column.value.format && formatProblem(column.value.format);
      if (problem) problems.push({ path: pointer(at, i, "columns", j, "value", "format"), message: problem });
    });
  });
  return problems;
}

/** buildSheetsWorkbook writes a new workbook: one worksheet per definition, an optional bold title row, a bold frozen
 * header row, then one row per item of the array at `source`, each cell read by its column's reference (cellValue). */
export async function buildSheetsWorkbook(data: unknown, sheets: SheetDefinition[], options: XlsxOptions = {}): Promise<Uint8Array<ArrayBuffer>> {
  const problems = sheetProblems(sheets);
  if (problems.length) throw new ApiError("BAD_REQUEST", "The request body is not valid.", { details: problems });
  const max = options.maxCells ?? MAX_REPORT_CELLS;
  const root: Scopes = { root: data, current: data };
  const lists = sheets.map((sheet, i) => listAt(root, sheet.source, "root", pointer("/data", ...sheet.source), `the source of sheet ${i}`));
  const cells = lists.reduce((sum, items, i) => sum + items.length * sheets[i].columns.length, 0);
  if (cells > max) throw overBudget(cells, max, "/sheets");

  const formats = new FormatterCache();
  return bytesOf(async (stream) => {
    // The streaming writer keeps one row at a time: a quarter of the memory of the in-memory workbook.
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: true });
    workbook.creator = "renderd";
    for (const [i, sheet] of sheets.entries()) {
      const headerRow = sheet.title === undefined ? 1 : 2;
      const worksheet = workbook.addWorksheet(sheet.name, { views: [{ state: "frozen", xSplit: 0, ySplit: headerRow }] });
      // Columns are written before the first row, so widths and number formats are set first.
      worksheet.columns = sheet.columns.map((column) => {
        const numFmt = column.numFmt ?? excelNumFmt(column.value.format);
        return { width: column.width ?? Math.min(60, Math.max(10, column.header.length + 2)), ...(numFmt ? { style: { numFmt } } : {}) };
      });
      if (sheet.title !== undefined) {
        const title = worksheet.addRow([sheet.title]);
        title.getCell(1).font = { bold: true, size: 14 };
        title.commit();
      }
      const header = worksheet.addRow(sheet.columns.map((column) => column.header));
      header.eachCell((cell) => (cell.font = { bold: true }));
      header.commit();
      for (const [index, item] of lists[i].entries()) {
        const scopes: Scopes = { root: data, current: item };
        const values = sheet.columns.map((column) => {
          const value = cellValue(column.value, scopes, formats);
          if (typeof value === "string" && value.length > MAX_CELL_TEXT) {
            const path = column.value.scope === "root" ? column.value.path : [...sheet.source, String(index), ...column.value.path];
            throw tooLong(pointer("/data", ...path));
          }
          return value;
        });
        worksheet.addRow(values).commit();
        // A committed row's XML is queued on the sheet's stream (archiver zips it as it comes) and its buffers are let
        // go when the event loop turns; the garbage of each row (its cells, its formatted text, its XML) is young, and
        // left to JavaScriptCore's own pace it piles up to ~120 MB above the data. A turn every 100 rows and a young-
        // generation collection every 1,000 keep it small: bench/xlsx.ts, 100,000 rows × 6 columns, peak
        // RSS 275–286 MB with the turns alone, 206–210 MB with both, the time the same (docs/performance.md).
        if (index % ROWS_PER_TURN === ROWS_PER_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
        if (index % ROWS_PER_COLLECTION === ROWS_PER_COLLECTION - 1) Bun.gc(false);
      }
      worksheet.commit();
    }
    await workbook.commit();
  });
}
