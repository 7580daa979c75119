/**
 * xlsx-fill: a workbook asset filled from data — `{{path}}` placeholders in its cells, and the rows between
 * `{{#each path}}` and `{{/each}}` markers repeated once per item (docs/reports.md).
 */
import ExcelJS from "exceljs";
import { ApiError } from "../errors";
import { FormatterCache } from "./compile/format";
import { pointer } from "./compile/pointer";
import type { Scopes } from "./compile/values";
import { parsePath, parseTemplate, renderParts, TemplateSyntaxError, type TemplatePart } from "./strings";
import { cellValue, excelNumFmt, listAt, MAX_CELL_TEXT, MAX_REPORT_CELLS, overBudget, type XlsxOptions } from "./xlsx-cells";

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
