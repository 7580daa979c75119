/** template-conversions/detect: which text of a PDF is data — dates, amounts, e-mail addresses, document numbers, and
 * rows that repeat as a table — and the names the data gets, from the labels beside it. Pure: runs in, detection out. */
import type { TextRun } from "./extract";

/** ValueKind is what a detected value looks like. */
export type ValueKind = "date" | "amount" | "email" | "reference";

/** Piece is a part of a text block: literal text, or the value of a root field. */
export type Piece = string | { field: string };

/** Block is a run of text outside any table, split into literal text and fields. */
export interface Block {
  run: TextRun;
  pieces: Piece[];
}

/** Field is one value of the data, with what it was found as. */
export interface Field {
  name: string;
  value: string;
  kind: ValueKind;
  label: string;
}

/** TableColumn is one column of a detected table; `right` columns are aligned on their right edge. */
export interface TableColumn {
  name: string;
  header: string;
  x: number;
  right: number;
  align: "left" | "right";
}

/** Table is rows of runs that repeat at a steady pitch; `rows[r][c]` is the cell of row r in column c. */
export interface Table {
  name: string;
  page: number;
  pitch: number;
  columns: TableColumn[];
  rows: TextRun[][];
}

/** Detection is a document's text split into fixed text, fields and tables. */
export interface Detection {
  blocks: Block[];
  fields: Field[];
  tables: Table[];
}

const MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\\.?";
// Order matters: a date is tried before an amount or a reference, so 2026-03-10 is never read as a number.
const PATTERNS: { kind: ValueKind; re: RegExp }[] = [
  { kind: "email", re: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g },
  {
    kind: "date",
    re: new RegExp(`\\b(?:\\d{4}-\\d{2}-\\d{2}|\\d{1,2}[./]\\d{1,2}[./]\\d{2,4}|${MONTH} \\d{1,2},? \\d{4}|\\d{1,2}\\.? ${MONTH},? \\d{4})\\b`, "g"),
  },
  {
    kind: "amount",
    // Thousands are grouped by a comma, a dot, an apostrophe or a no-break space, never a plain space: "2 100.00" is
    // a count and an amount.
    re: /(?:[$€£¥]\s?-?|\b(?:USD|EUR|GBP|CHF|JPY) ?-?|-?\b)\d{1,3}(?:[,.'\u00a0\u202f]?\d{3})*[.,]\d{2}\b(?: ?(?:€|EUR|USD|GBP|CHF))?/g,
  },
  { kind: "reference", re: /#\d{3,}\b|\b[A-Z]{2,}[-/]?\d+(?:[-/][A-Z0-9]+)*\b/g },
];

const NUMBER = /^-?\d+(?:[.,]\d+)?$/;

type Match = { kind: ValueKind; start: number; end: number };

/** findValues answers the data-looking values of a text, left to right, without overlaps. */
export function findValues(text: string): Match[] {
  const found: Match[] = [];
  for (const { kind, re } of PATTERNS) {
    for (const m of text.matchAll(re)) {
      const start = m.index!;
      const end = start + m[0].length;
      if (!found.some((f) => start < f.end && end > f.start)) found.push({ kind, start, end });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

const MAX_NAME = 64;

/** fieldName turns a label into a camelCase data property name, or answers `fallback` when it has no words. */
export function fieldName(label: string, fallback: string): string {
  const words = label.match(/[A-Za-z][A-Za-z0-9]*/g)?.slice(-4) ?? [];
  if (words.length === 0) return fallback;
  // A data path segment is at most 128 characters (spec 2.12); a name is kept well inside it.
  return words.map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1).toLowerCase())).join("").slice(0, MAX_NAME);
}

/** Names hands out property names once each: `name`, then `name2`, `name3`… */
export class Names {
  private readonly taken = new Set<string>();
  // The next number to try per name, so that a thousand values with one label cost a thousand steps, not a million.
  private readonly next = new Map<string, number>();

  /** take answers `name`, or the first numbered form of it not yet handed out, and hands it out. */
  take(name: string): string {
    let n = this.next.get(name) ?? 1;
    let candidate = n === 1 ? name : `${name}${n}`;
    while (this.taken.has(candidate)) candidate = `${name}${++n}`;
    this.next.set(name, n + 1);
    this.taken.add(candidate);
    return candidate;
  }
}

interface Line {
  page: number;
  baseline: number;
  runs: TextRun[];
}

function linesOf(runs: TextRun[]): Line[] {
  const sorted = [...runs].sort((a, b) => a.page - b.page || a.baseline - b.baseline || a.x - b.x);
  const lines: Line[] = [];
  for (const run of sorted) {
    const last = lines.at(-1);
    if (last && last.page === run.page && Math.abs(last.baseline - run.baseline) < 1) last.runs.push(run);
    else lines.push({ page: run.page, baseline: run.baseline, runs: [run] });
  }
  for (const line of lines) line.runs.sort((a, b) => a.x - b.x);
  return lines;
}

const right = (run: TextRun) => run.x + run.width;

// Two lines share columns when each cell starts, or ends, where the other line's does.
function aligned(a: TextRun[], b: TextRun[]): boolean {
  return a.length === b.length && a.every((cell, i) => Math.abs(cell.x - b[i]!.x) < 2 || Math.abs(right(cell) - right(b[i]!)) < 2);
}

// A header names the columns when it has one cell over each: its cell overlaps the span the column's cells take.
function heads(header: TextRun[], rows: Line[]): boolean {
  return header.length === rows[0]!.runs.length && header.every((cell, c) => {
    const column = rows.map((r) => r.runs[c]!);
    return cell.x < Math.max(...column.map(right)) && right(cell) > Math.min(...column.map((r) => r.x));
  });
}

const isRowLike = (line: Line) => line.runs.length >= 2 && line.runs.some((r) => NUMBER.test(r.text.trim()) || findValues(r.text).some((v) => v.kind === "amount"));

// Consecutive lines on one page whose cells align and whose baselines follow at a steady pitch, from `rows[0]` on.
function continues(rows: Line[], next: Line): boolean {
  const last = rows.at(-1)!;
  const steady = rows.length < 2 || Math.abs(next.baseline - last.baseline - (rows[1]!.baseline - rows[0]!.baseline)) < 1.5;
  return next.page === last.page && aligned(last.runs, next.runs) && steady;
}

// A group of line indices (a model's answer) that can be a table: two or more consecutive lines of two or more cells.
function groupRows(lines: Line[], group: number[]): Line[] | null {
  if (group.length < 2 || !group.every((n, k) => Number.isInteger(n) && n === group[0]! + k && n >= 0 && n < lines.length)) return null;
  const rows = [lines[group[0]!]!];
  if (rows[0]!.runs.length < 2) return null;
  for (const n of group.slice(1)) {
    if (!continues(rows, lines[n]!)) return null;
    rows.push(lines[n]!);
  }
  return rows;
}

/** findTables answers the groups of at least two consecutive lines on one page that have the same aligned cells, hold
 * a number or an amount, and follow each other at a steady pitch; with the header line above them when it aligns too.
 * `groups` (line indices, from a model) are tables too when they align and keep their pitch, numbers or not. */
function findTables(lines: Line[], groups: number[][]): { header: Line | null; rows: Line[] }[] {
  const forced = new Map<number, Line[]>();
  const claimed = new Set<number>();
  for (const group of groups) {
    const rows = groupRows(lines, group);
    if (rows && !group.some((n) => claimed.has(n))) {
      forced.set(group[0]!, rows);
      for (const n of group) claimed.add(n);
    }
  }
  const tables: { header: Line | null; rows: Line[] }[] = [];
  let i = 0;
  while (i < lines.length) {
    const rows = forced.get(i) ?? [lines[i]!];
    if (!forced.has(i) && isRowLike(lines[i]!))
      for (let j = i + 1; j < lines.length && !claimed.has(j) && isRowLike(lines[j]!) && continues(rows, lines[j]!); j++) rows.push(lines[j]!);
    if (rows.length >= 2) {
      const above = lines[i - 1];
      const header = above && !claimed.has(i - 1) && above.page === rows[0]!.page && !isRowLike(above) && heads(above.runs, rows) ? above : null;
      tables.push({ header, rows });
    }
    i += rows.length;
  }
  return tables;
}

/** tableCandidates answers the lines of two or more cells, by their index in the document, for a model to group. */
export function tableCandidates(runs: TextRun[]): { index: number; cells: string[] }[] {
  return linesOf(runs).flatMap((line, index) => (line.runs.length >= 2 ? [{ index, cells: line.runs.map((r) => r.text) }] : []));
}

function tableOf(found: { header: Line | null; rows: Line[] }, names: Names): Table {
  const rows = found.rows.map((l) => l.runs);
  const own = new Names();
  const columns = rows[0]!.map((_, c): TableColumn => {
    const cells = rows.map((r) => r[c]!);
    const lefts = cells.map((r) => r.x);
    const align = Math.max(...lefts) - Math.min(...lefts) < 1 ? "left" : "right";
    const header = found.header?.runs[c]?.text.trim() ?? "";
    return { name: own.take(fieldName(header, `column${c + 1}`)), header, x: Math.min(...lefts), right: Math.max(...cells.map(right)), align };
  });
  const first = found.rows[0]!;
  const pitch = (found.rows.at(-1)!.baseline - first.baseline) / (found.rows.length - 1);
  return { name: names.take("items"), page: first.page, pitch, columns, rows };
}

// The label of a value at the start of its run: the nearest run to its left on the same line, when there is one.
function labelLeftOf(line: Line, run: TextRun): string {
  const before = line.runs.filter((r) => right(r) <= run.x + 0.5).at(-1);
  return before && run.x - right(before) < 200 ? before.text : "";
}

/** detect splits a document's runs into tables, and blocks whose data-looking values become named fields; `groups`
 * are line indices (of tableCandidates) a model says form tables. */
export function detect(runs: TextRun[], groups: number[][] = []): Detection {
  const lines = linesOf(runs);
  const names = new Names();
  const found = findTables(lines, groups);
  const tables = found.map((t) => tableOf(t, names));
  const inTable = new Set(found.flatMap((t) => t.rows.flatMap((l) => l.runs)));
  const blocks: Block[] = [];
  const fields: Field[] = [];
  for (const line of lines) {
    for (const run of line.runs) {
      if (inTable.has(run)) continue;
      const pieces: Piece[] = [];
      let at = 0;
      for (const value of findValues(run.text)) {
        const literal = run.text.slice(at, value.start);
        if (literal) pieces.push(literal);
        const label = (at === 0 && value.start === 0 ? labelLeftOf(line, run) : literal).replace(/[:#]/g, " ").trim();
        const name = names.take(fieldName(label, value.kind));
        fields.push({ name, value: run.text.slice(value.start, value.end), kind: value.kind, label });
        pieces.push({ field: name });
        at = value.end;
      }
      if (at < run.text.length) pieces.push(run.text.slice(at));
      blocks.push({ run, pieces });
    }
  }
  return { blocks, fields, tables };
}
