/**
 * xlsx: the pure Excel stage of reports (DESIGN.md 4 "Reports and strings"; the rules are in docs/reports.md) — data
 * + sheet definitions → a new workbook, and a workbook asset + data → that workbook with its placeholders filled and
 * its marked rows repeated. No store, no HTTP: problems are thrown as ApiError with pointers into the request body.
 * Its parts: xlsx-sheets.ts (sheet definitions → workbook), xlsx-fill.ts (workbook asset + data → workbook),
 * xlsx-cells.ts (values → typed cells and number formats, the cell limits).
 */
export { buildSheetsWorkbook } from "./xlsx-sheets";
export { fillWorkbook } from "./xlsx-fill";
