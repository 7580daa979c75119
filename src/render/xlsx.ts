/**
 * xlsx: the pure Excel stage of reports (DESIGN.md 4 "Reports and strings"; the rules are in docs/reports.md) — data
 * + sheet definitions → a new workbook, and a workbook asset + data → that workbook with its placeholders filled and
 * its marked rows repeated. No store, no HTTP: problems are thrown as ApiError with pointers into the request body.
 */
import ExcelJS from "exceljs";
import { PassThrough } from "node:stream";
import { ApiError, type ErrorDetail } from "../errors";
import type { SheetDefinition } from "./sheets";
import { DEFAULT_FORMAT, FormatterCache, formatProblem, toDate, toNumber } from "./compile/format";
import type { ValueFormat, ValueReference } from "./compile/model";
import { pointer } from "./compile/pointer";
import { lookup, referenceText, type Scopes } from "./compile/values";
import { parsePath, parseTemplate, renderParts, TemplateSyntaxError, type TemplatePart } from "./strings";

/** MAX_REPORT_CELLS caps the cells one report writes (rows × columns over every sheet, or every cell of a filled
 * workbook after its rows are repeated). exceljs builds on the event loop, which serves every other request meanwhile:
 * the cap keeps a report to about a second of work and a few hundred MB of memory (docs/reports.md). */
export const MAX_REPORT_CELLS = 100_000;

/** MAX_CELL_TEXT is the most characters an Excel cell holds. */
export const MAX_CELL_TEXT = 32_767;

/** CellValue is what a report writes into a cell: numbers, booleans and dates keep their type. */
export type CellValue = string | number | boolean | Date | null;

/** XlsxOptions: the cell budget (default MAX_REPORT_CELLS). */
export interface XlsxOptions {
  maxCells?: number;
}

// Excel refuses these names whatever the characters (it keeps "History" for change tracking).
const RESERVED_SHEET_NAMES = new Set(["history"]);
const DATE_NUMFMT: Record<NonNullable<ValueFormat["dateStyle"]>, string> = {
  short: "yyyy-mm-dd",
  medium: "d mmm yyyy",
  long: "d mmmm yyyy",
  full: "dddd, d mmmm yyyy",
};

// ---------------------------------------------------------------------------------------------------------------
// Values

const wallClocks = new Map<string, Intl.DateTimeFormat>();

// Excel dates have no zone and exceljs writes a Date's UTC fields, so the wall clock of `timeZone` is moved into them.
function wallClock(date: Date, timeZone: string): Date {
  if (timeZone === "UTC") return date;
  let intl = wallClocks.get(timeZone);
  if (!intl) {
    intl = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    wallClocks.set(timeZone, intl);
  }
  const p = Object.fromEntries(intl.formatToParts(date).map((part) => [part.type, part.value]));
  return new Date(Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second), date.getUTCMilliseconds()));
}

/** cellValue reads a reference as a typed cell value: a number stays a number, a numeric string becomes one under a
 * number, currency or percent format, an ISO date or epoch milliseconds becomes a date under a date format, a boolean
 * stays a boolean; a missing value, null, an object or an array is the fallback or empty. With prefix or suffix the
 * cell is the reference's text. */
export function cellValue(reference: ValueReference, scopes: Scopes, formats: FormatterCache): CellValue {
  const value = lookup(scopes, reference.path, reference.scope);
  if (value === undefined || value === null || typeof value === "object") return reference.fallback ?? null;
  if (reference.prefix !== undefined || reference.suffix !== undefined) return referenceText(reference, scopes, formats);
  const format = reference.format;
  if (format?.type === "date") {
    const date = toDate(value);
    if (date) return wallClock(date, format.timeZone ?? DEFAULT_FORMAT.timeZone);
  } else if (format && typeof value === "string" && toNumber(value) !== undefined) return toNumber(value)!;
  return value as string | number | boolean;
}

/** excelNumFmt answers the Excel number format that shows a value like `format` does, or undefined for General. */
export function excelNumFmt(format: ValueFormat | undefined): string | undefined {
  if (!format) return undefined;
  const digits = (fallback: number) => {
    const min = format.minimumFractionDigits ?? format.maximumFractionDigits ?? fallback;
    const max = Math.max(min, format.maximumFractionDigits ?? min);
    return max === 0 ? "" : "." + "0".repeat(min) + "#".repeat(max - min);
  };
  switch (format.type) {
    case "date":
      return DATE_NUMFMT[format.dateStyle ?? "medium"];
    case "percent":
      return "0" + digits(0) + "%";
    case "number":
      // Intl shows up to 3 digits by default, which Excel can only say as "0.###" (a dangling dot on integers).
      return format.minimumFractionDigits === undefined && format.maximumFractionDigits === undefined ? undefined : "#,##0" + digits(0);
    case "currency": {
      const intl = new Intl.NumberFormat(format.locale ?? DEFAULT_FORMAT.locale, { style: "currency", currency: format.currency });
      const parts = intl.formatToParts(1);
      const symbol = parts.find((p) => p.type === "currency")?.value ?? format.currency ?? "";
      const number = "#,##0" + digits(intl.resolvedOptions().maximumFractionDigits ?? 2);
      const quoted = `"${symbol.replaceAll('"', "")}"`;
      const before = parts.findIndex((p) => p.type === "currency") < parts.findIndex((p) => p.type === "integer");
      const spaced = parts.some((p) => p.type === "literal" && p.value.trim() === "");
      return before ? quoted + (spaced ? " " : "") + number : number + (spaced ? " " : "") + quoted;
    }
  }
}

function tooLong(path: string): ApiError {
  return new ApiError("DATA_INVALID", "The data does not fit in an Excel cell.", {
    details: [{ path, message: `is longer than ${MAX_CELL_TEXT} characters, the most an Excel cell holds` }],
  });
}

function overBudget(cells: number, max: number, path: string): ApiError {
  return new ApiError("LIMIT_EXCEEDED", `The report would write ${cells} cells or more; at most ${max} are allowed.`, {
    details: [{ path, message: `at most ${max} cells per report` }],
  });
}

// A missing or null list is an empty one; anything else that is not an array is a data problem.
function listAt(scopes: Scopes, path: string[], scope: "root" | "current", at: string, what: string): unknown[] {
  const value = lookup(scopes, path, scope);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw new ApiError("DATA_INVALID", "The data does not match the report.", { details: [{ path: at, message: `must be an array (${what})` }] });
  return value;
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

// ---------------------------------------------------------------------------------------------------------------
// Workbooks from sheet definitions

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
    sheets.forEach((sheet, i) => {
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
      lists[i].forEach((item, index) => {
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
      });
      worksheet.commit();
    });
    await workbook.commit();
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Workbook assets with placeholders

const EACH_OPEN = /^\s*\{\{\s*#each\s+(.*?)\s*\}\}\s*$/s;
const EACH_CLOSE = /^\s*\{\{\s*\/each\s*\}\}\s*$/;

interface Block {
  start: number;
  end: number;
  path: string[];
  scope: "root" | "current";
  /** Target row of the first copied row, per item. */
  copies: number[];
}

interface Planned {
  source: number;
  target: number;
  scopes: Scopes;
}

interface Range {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

type RowModel = { number: number; cells: CellModel[]; [key: string]: unknown };
type CellModel = { address: string; type: number; style?: unknown; formula?: string; sharedFormula?: string; shareType?: string; ref?: string; result?: unknown; [key: string]: unknown };

/** FillContext is one filling: data, formats, parsed templates by text, the cell budget and where to point problems. */
interface FillContext {
  data: unknown;
  formats: FormatterCache;
  parsed: Map<string, TemplatePart[]>;
  max: number;
  cells: number;
  at: string;
}

function plainText(value: ExcelJS.CellValue): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "richText" in value) return value.richText.map((run) => run.text).join("");
  return undefined;
}

function assetInvalid(at: string, message: string): ApiError {
  return new ApiError("ASSET_INVALID", "The workbook asset cannot be filled.", { details: [{ path: at, message }] });
}

// exceljs exposes no address helpers in its types; these are the two this file needs.
const addresses = {
  decode(address: string): { row: number; col: number } {
    const m = /^\$?([A-Z]{1,3})\$?(\d+)$/.exec(address);
    if (!m) throw new Error(`not a cell address: ${address}`);
    let col = 0;
    for (const c of m[1]) col = col * 26 + (c.charCodeAt(0) - 64);
    return { row: Number(m[2]), col };
  },
  column(col: number): string {
    let name = "";
    for (let n = col; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
    return name;
  },
};

function decodeRange(range: string): Range {
  const [a, b = a] = range.split(":");
  const tl = addresses.decode(a);
  const br = addresses.decode(b);
  return { top: tl.row, left: tl.col, bottom: br.row, right: br.col };
}

function encodeRange(r: Range): string {
  return `${addresses.column(r.left)}${r.top}:${addresses.column(r.right)}${r.bottom}`;
}

function parsed(ctx: FillContext, text: string, where: string): TemplatePart[] {
  let parts = ctx.parsed.get(text);
  if (!parts) {
    try {
      parts = parseTemplate(text);
    } catch (error) {
      if (error instanceof TemplateSyntaxError) throw assetInvalid(ctx.at, `${where}: ${error.message}`);
      throw error;
    }
    ctx.parsed.set(text, parts);
  }
  return parts;
}

function cellTooLong(where: string): ApiError {
  return new ApiError("DATA_INVALID", "The data does not fit in an Excel cell.", {
    details: [{ path: "/data", message: `${where} would hold more than ${MAX_CELL_TEXT} characters, the most an Excel cell holds` }],
  });
}

function text(ctx: FillContext, parts: TemplatePart[], scopes: Scopes, where: string): string {
  try {
    return renderParts(parts, scopes, ctx.formats, MAX_CELL_TEXT);
  } catch (error) {
    if (error instanceof ApiError && error.code === "LIMIT_EXCEEDED") throw cellTooLong(where);
    throw error;
  }
}

function fillCell(ctx: FillContext, cell: ExcelJS.Cell, scopes: Scopes, where: string): void {
  const value = cell.value;
  if (typeof value === "string") {
    if (!value.includes("{{")) return;
    const parts = parsed(ctx, value, where);
    const only = parts.length === 1 ? parts[0] : undefined;
    if (only !== undefined && typeof only !== "string") {
      // A cell that is exactly one placeholder takes the value's type; the cell's own number format shows it.
      const typed = cellValue(only.reference, scopes, ctx.formats);
      if (typeof typed === "string" && typed.length > MAX_CELL_TEXT) throw cellTooLong(where);
      cell.value = typed;
      // The cell's own number format wins; on General, the placeholder's format gives one (a date must not show as a serial).
      const numFmt = (typeof typed === "number" || typed instanceof Date) && excelNumFmt(only.reference.format);
      if (numFmt && (!cell.numFmt || cell.numFmt === "General"))
        // Styles may be shared between cells: replace, never mutate.
        cell.style = { ...cell.style, numFmt };
    } else cell.value = text(ctx, parts, scopes, where);
  } else if (value && typeof value === "object" && "richText" in value && value.richText.some((run) => run.text.includes("{{"))) {
    // Each run keeps its font; a placeholder must sit inside one run.
    cell.value = {
      richText: value.richText.map((run) => (run.text.includes("{{") ? { ...run, text: text(ctx, parsed(ctx, run.text, where), scopes, where) } : run)),
    };
  }
}

function cellName(sheet: string, address: string): string {
  return `sheet ${JSON.stringify(sheet)} cell ${address}`;
}

function findBlocks(ctx: FillContext, worksheet: ExcelJS.Worksheet, rows: Map<number, RowModel>): Block[] {
  const blocks: Block[] = [];
  let open: Block | undefined;
  // The getter lists rows in order.
  for (const number of rows.keys()) {
    const first = plainText(worksheet.findCell(number, 1)?.value ?? null);
    if (first === undefined) continue;
    const opening = EACH_OPEN.exec(first);
    if (opening) {
      if (open) throw assetInvalid(ctx.at, `${cellName(worksheet.name, `A${number}`)}: {{#each}} inside the repeated rows of A${open.start} (nesting is not supported)`);
      let reference;
      try {
        reference = parsePath(opening[1], first.indexOf(opening[1]));
      } catch (error) {
        if (error instanceof TemplateSyntaxError) throw assetInvalid(ctx.at, `${cellName(worksheet.name, `A${number}`)}: ${error.message}`);
        throw error;
      }
      open = { start: number, end: 0, ...reference, copies: [] };
    } else if (EACH_CLOSE.test(first)) {
      if (!open) throw assetInvalid(ctx.at, `${cellName(worksheet.name, `A${number}`)}: {{/each}} without a {{#each}} above it`);
      open.end = number;
      blocks.push(open);
      open = undefined;
    }
  }
  if (open) throw assetInvalid(ctx.at, `${cellName(worksheet.name, `A${open.start}`)}: {{#each}} without a {{/each}} below it`);
  return blocks;
}

// A row moves to `target`: every cell's address follows; a shared formula becomes the plain formula it stands for
// (its master may move elsewhere); a merged cell becomes an empty styled cell, merged again afterwards.
function relocate(worksheet: ExcelJS.Worksheet, row: RowModel, target: number): RowModel {
  const copy = structuredClone(row);
  copy.number = target;
  copy.cells = copy.cells.map((cell) => {
    const { col } = addresses.decode(cell.address);
    const address = addresses.column(col) + target;
    if (cell.type === ExcelJS.ValueType.Merge) return { address, type: ExcelJS.ValueType.Null, style: cell.style };
    if (cell.type === ExcelJS.ValueType.Formula && (cell.sharedFormula || cell.shareType)) {
      const original = worksheet.findCell(row.number, col)!;
      return { address, type: ExcelJS.ValueType.Formula, formula: original.formula, result: cell.result, style: cell.style };
    }
    return { ...cell, address };
  });
  return copy;
}

function repeatRows(ctx: FillContext, worksheet: ExcelJS.Worksheet, model: { rows: RowModel[]; merges: string[] }, rows: Map<number, RowModel>, blocks: Block[]): Planned[] {
  const root: Scopes = { root: ctx.data, current: ctx.data };
  const merges = model.merges.map(decodeRange);
  // A loop, not Math.max(...): a sheet can have more rows than a call takes arguments.
  let last = 0;
  for (const number of rows.keys()) last = Math.max(last, number);
  for (const merge of merges) last = Math.max(last, merge.bottom);
  const plan: Planned[] = [];
  const moved = new Map<number, number>();
  let target = 1;
  let next = 0;
  const count = (source: number) => {
    ctx.cells += rows.get(source)?.cells.length ?? 0;
    if (ctx.cells > ctx.max) throw overBudget(ctx.cells, ctx.max, ctx.at);
  };
  for (let source = 1; source <= last; ) {
    const block = blocks[next];
    if (block && source === block.start) {
      const what = `the repeated rows of sheet ${JSON.stringify(worksheet.name)} row ${block.start}`;
      for (const item of listAt(root, block.path, block.scope, pointer("/data", ...block.path), what)) {
        block.copies.push(target);
        for (let s = block.start + 1; s < block.end; s++) {
          count(s);
          plan.push({ source: s, target: target++, scopes: { root: ctx.data, current: item } });
        }
      }
      source = block.end + 1;
      next += 1;
      continue;
    }
    count(source);
    moved.set(source, target);
    plan.push({ source, target: target++, scopes: root });
    source += 1;
  }

  const newMerges: string[] = [];
  for (const merge of merges) {
    const block = blocks.find((b) => merge.top <= b.end && merge.bottom >= b.start);
    if (!block) {
      const top = moved.get(merge.top)!;
      newMerges.push(encodeRange({ ...merge, top, bottom: top + merge.bottom - merge.top }));
    } else if (merge.top > block.start && merge.bottom < block.end) {
      for (const first of block.copies) {
        const top = first + merge.top - (block.start + 1);
        newMerges.push(encodeRange({ ...merge, top, bottom: top + merge.bottom - merge.top }));
      }
    } else
      throw assetInvalid(ctx.at, `sheet ${JSON.stringify(worksheet.name)}: merged cells ${encodeRange(merge)} cross the repeated rows ${block.start}–${block.end}`);
  }

  const newRows = plan.filter((p) => rows.has(p.source)).map((p) => relocate(worksheet, rows.get(p.source)!, p.target));
  for (const range of model.merges) worksheet.unMergeCells(range);
  // The model setter rebuilds the rows and keeps everything else; the merges follow.
  (worksheet as unknown as { model: unknown }).model = { ...model, rows: newRows, mergeCells: [] };
  mergeAll(worksheet, newMerges);
  return plan;
}

// exceljs checks each new merge against every merge made before (quadratic: 20000 repeated merges took 45 s). These
// ranges are disjoint by construction — copies of disjoint template merges into rows of their own — so each is made
// against an empty index and then added to the sheet's.
function mergeAll(worksheet: ExcelJS.Worksheet, ranges: string[]): void {
  const sheet = worksheet as unknown as { _merges: Record<string, unknown> };
  const all = sheet._merges;
  try {
    for (const range of ranges) {
      sheet._merges = {};
      worksheet.mergeCellsWithoutStyle(range);
      Object.assign(all, sheet._merges);
    }
  } finally {
    sheet._merges = all;
  }
}

function fillSheet(ctx: FillContext, worksheet: ExcelJS.Worksheet): void {
  const model = (worksheet as unknown as { model: { rows: RowModel[]; merges: string[] } }).model;
  const rows = new Map(model.rows.map((row) => [row.number, row]));
  const blocks = findBlocks(ctx, worksheet, rows);
  const root: Scopes = { root: ctx.data, current: ctx.data };
  let plan: Planned[];
  if (blocks.length) plan = repeatRows(ctx, worksheet, model, rows, blocks);
  else {
    // Without repeated rows nothing moves: the cells are filled where they are.
    plan = model.rows.map((row) => ({ source: row.number, target: row.number, scopes: root }));
    ctx.cells += model.rows.reduce((sum, row) => sum + row.cells.length, 0);
    if (ctx.cells > ctx.max) throw overBudget(ctx.cells, ctx.max, ctx.at);
  }
  for (const { target, scopes } of plan) {
    worksheet.findRow(target)?.eachCell((cell) => {
      if (cell.type !== ExcelJS.ValueType.Merge) fillCell(ctx, cell, scopes, cellName(worksheet.name, cell.address));
    });
  }
}

/** fillWorkbook fills a workbook asset from data: cells with `{{path}}` placeholders get their values (a cell that is
 * exactly one placeholder keeps the value's type), and the rows between a `{{#each path}}` row and a `{{/each}}` row
 * (markers in column A) repeat once per item with the item as the current scope; the marker rows go. Problems with
 * the workbook are 422 ASSET_INVALID pointing at `at`. */
export async function fillWorkbook(bytes: Uint8Array, data: unknown, options: XlsxOptions & { at?: string } = {}): Promise<Uint8Array<ArrayBuffer>> {
  const ctx: FillContext = { data, formats: new FormatterCache(), parsed: new Map(), max: options.maxCells ?? MAX_REPORT_CELLS, cells: 0, at: options.at ?? "/workbookAssetId" };
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ExcelJS.Buffer);
  } catch (error) {
    throw assetInvalid(ctx.at, `the workbook could not be read: ${(error as Error).message}`);
  }
  for (const worksheet of workbook.worksheets) fillSheet(ctx, worksheet);
  // Formulas carry the results cached when the template was saved, from before its cells were filled.
  workbook.calcProperties = { ...workbook.calcProperties, fullCalcOnLoad: true };
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}
