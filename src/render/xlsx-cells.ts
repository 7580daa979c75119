/**
 * xlsx-cells: how a report's values become Excel cells (docs/reports.md) — the typed cell value of a reference, the
 * Excel number format that shows it like its format does, and the limits and refusals shared by both ways of making a
 * workbook (xlsx-sheets.ts, xlsx-fill.ts).
 */
import { ApiError } from "../errors";
import { DEFAULT_FORMAT, FormatterCache, toDate, toNumber } from "./compile/format";
import type { ValueFormat, ValueReference } from "./compile/model";
import { lookup, referenceText, type Scopes } from "./compile/values";

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

const DATE_NUMFMT: Record<NonNullable<ValueFormat["dateStyle"]>, string> = {
  short: "yyyy-mm-dd",
  medium: "d mmm yyyy",
  long: "d mmmm yyyy",
  full: "dddd, d mmmm yyyy",
};

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

/** overBudget is the refusal of a report that would write more than `max` cells. */
export function overBudget(cells: number, max: number, path: string): ApiError {
  return new ApiError("LIMIT_EXCEEDED", `The report would write ${cells} cells or more; at most ${max} are allowed.`, {
    details: [{ path, message: `at most ${max} cells per report` }],
  });
}

/** listAt answers the list at `path`: a missing or null list is an empty one; anything else that is not an array is a data problem. */
export function listAt(scopes: Scopes, path: string[], scope: "root" | "current", at: string, what: string): unknown[] {
  const value = lookup(scopes, path, scope);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw new ApiError("DATA_INVALID", "The data does not match the report.", { details: [{ path: at, message: `must be an array (${what})` }] });
  return value;
}
