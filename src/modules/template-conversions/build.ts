/** template-conversions/build: a template draft from what was extracted and detected — pages of the source's size and
 * margins holding absolutely positioned text blocks, rules and shapes; fields as value references, tables as repeats —
 * with the data schema it needs and the sample data found in the source. */
import type { CompositionNode, DataSchema, Style, TextValue } from "../../render/compile/model";
import type { TemplateDraft } from "../templates/model";
import type { Detection, Piece, Table } from "./detect";
import type { Extraction, ImageBox, Shape, TextRun } from "./extract";

/** Built is the converter's result: the draft, and data that renders it as the source. */
export interface Built {
  draft: TemplateDraft;
  sampleData: Record<string, unknown>;
}

interface Margins {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

const pt = (n: number) => `${Math.round(n * 100) / 100}pt`;
const mm = (points: number) => `${(Math.max(0, points) * 25.4 / 72).toFixed(3)}mm`;

/** lineBoxAbove is how far above its baseline a run's line box starts: with line-height 1 the box is one font size
 * tall and starts half the (negative) leading plus the ascent above the baseline. */
const lineBoxAbove = (r: TextRun) => ((1 - (r.ascent - r.descent)) / 2 + r.ascent) * r.fontSize;

// The vertical extent of a run: its glyphs, or its line box where that reaches further.
function runExtent(r: TextRun): { y0: number; y1: number } {
  const boxTop = r.baseline - lineBoxAbove(r);
  return { y0: Math.min(r.baseline - r.ascent * r.fontSize, boxTop), y1: Math.max(r.baseline - r.descent * r.fontSize, boxTop + r.fontSize) };
}

// The margins are the empty border every page shares, in whole points and one short, so the draft's page area holds
// all content: a box reaching past it would print on a page of its own.
function marginsOf(source: Extraction): Margins {
  const boxes = [
    ...source.runs.map((r) => ({ page: r.page, x0: r.x, x1: r.x + r.width, ...runExtent(r) })),
    ...[...source.shapes, ...source.images].map((s) => ({ page: s.page, x0: s.x, y0: s.y, x1: s.x + s.width, y1: s.y + s.height })),
  ];
  const m = { top: Infinity, right: Infinity, bottom: Infinity, left: Infinity };
  for (const b of boxes) {
    const page = source.pages[b.page]!;
    m.top = Math.min(m.top, b.y0);
    m.left = Math.min(m.left, b.x0);
    m.right = Math.min(m.right, page.width - b.x1);
    m.bottom = Math.min(m.bottom, page.height - b.y1);
  }
  const clamp = (n: number) => (Number.isFinite(n) ? Math.max(0, Math.floor(n) - 1) : 0);
  return { top: clamp(m.top), right: clamp(m.right), bottom: clamp(m.bottom), left: clamp(m.left) };
}

/** textStyle places a run so that its baseline lands where the source's is. */
function textStyle(run: TextRun, left: number, baselineFromTop: number): Style {
  const style: Style = {
    position: "absolute",
    left: pt(left),
    top: pt(baselineFromTop - lineBoxAbove(run)),
    fontSize: pt(run.fontSize),
    lineHeight: 1,
    whiteSpace: "pre",
    fontFamily: run.fontFamily,
  };
  if (run.bold) style.fontWeight = 700;
  if (run.italic) style.fontStyle = "italic";
  if (run.color !== "#000000") style.color = run.color;
  return style;
}

function textValue(pieces: Piece[]): TextValue {
  const parts = pieces.map((p) => (typeof p === "string" ? p : { path: [p.field] }));
  if (parts.length === 1) return parts[0]!;
  return { parts };
}

function shapeNode(s: Shape, m: Margins): CompositionNode {
  const box: Style = { position: "absolute", left: pt(s.x - m.left), top: pt(s.y - m.top), width: pt(s.width), height: pt(s.height) };
  if (s.paint === "fill") return { type: "container", children: [], style: { ...box, backgroundColor: s.color } };
  const thin = Math.min(s.width, s.height) <= s.lineWidth + 0.5;
  // A stroked line is a rule as thick as the line; a stroked outline keeps its line as a border.
  if (thin) {
    const w = Math.max(s.width, s.lineWidth);
    const h = Math.max(s.height, s.lineWidth);
    return { type: "container", children: [], style: { ...box, left: pt(s.x - m.left - (w - s.width) / 2), top: pt(s.y - m.top - (h - s.height) / 2), width: pt(w), height: pt(h), backgroundColor: s.color } };
  }
  return { type: "container", children: [], style: { ...box, border: `${pt(s.lineWidth)} solid ${s.color}`, boxSizing: "border-box" } };
}

// Images stay in the PDF: the draft marks where each was with a dashed frame (docs/conversions.md "Limits").
function imageNode(i: ImageBox, m: Margins): CompositionNode {
  return {
    type: "container",
    className: "converted-image",
    children: [],
    style: { position: "absolute", left: pt(i.x - m.left), top: pt(i.y - m.top), width: pt(i.width), height: pt(i.height), border: "0.5pt dashed #999999", boxSizing: "border-box" },
  };
}

// A right-aligned column gets a box ending at the column's right edge, wide enough for longer values than the source's.
function cellStyle(table: Table, column: number, run: TextRun, m: Margins): Style {
  const c = table.columns[column]!;
  // Each row box starts at its baseline (tableNode), so every cell's baseline is at 0 in it.
  const style = textStyle(run, c.x - m.left, 0);
  if (c.align === "left") return style;
  const width = Math.max(...table.rows.map((r) => r[column]!.width)) * 1.5 + 20;
  return { ...style, left: pt(c.right - m.left - width), width: pt(width), textAlign: "right" };
}

// Every row of a table is drawn from its first: a repeat of rows one pitch tall, each cell where the first row's is.
function tableNode(table: Table, m: Margins): CompositionNode {
  const first = table.rows[0]!;
  const top = first[0]!.baseline - m.top;
  const cells = first.map((run, c): CompositionNode => ({ type: "text", text: { path: [table.columns[c]!.name] }, style: cellStyle(table, c, run, m) }));
  return {
    type: "repeat",
    source: { path: [table.name] },
    style: { position: "absolute", left: "0pt", top: pt(top), width: "100%" },
    children: [{ type: "container", style: { position: "relative", height: pt(table.pitch) }, children: cells }],
  };
}

// Shapes painted twice (Chromium paints a table's shared borders once per cell) have one key, to a hundredth of a point.
const shapeKey = (s: Shape) => [s.page, s.paint, s.color, ...[s.x, s.y, s.width, s.height].map((n) => Math.round(n * 100))].join(" ");

/** MAX_CHILDREN is a container's limit on children (render/compile/model.ts). */
const MAX_CHILDREN = 1000;

// A page with more nodes than a container holds is split into containers without a position of their own, so that
// every node is still placed from the page's corner.
function within(children: CompositionNode[]): CompositionNode[] {
  if (children.length <= MAX_CHILDREN) return children;
  const groups: CompositionNode[] = [];
  for (let i = 0; i < children.length; i += MAX_CHILDREN) groups.push({ type: "container", children: children.slice(i, i + MAX_CHILDREN) });
  return within(groups);
}

/** buildDraft answers the template draft and sample data of a detected document. */
export function buildDraft(source: Extraction, found: Detection): Built {
  const m = marginsOf(source);
  const keys = new Set<string>();
  // White fills only repaint the paper.
  const shapes = source.shapes.filter((s) => !(s.paint === "fill" && s.color === "#ffffff") && !keys.has(shapeKey(s)) && keys.add(shapeKey(s)));
  const pages = source.pages.map((page, index): CompositionNode => {
    const children: CompositionNode[] = [
      ...shapes.filter((s) => s.page === index).map((s) => shapeNode(s, m)),
      ...source.images.filter((i) => i.page === index).map((i) => imageNode(i, m)),
      ...found.blocks.filter((b) => b.run.page === index).map((b): CompositionNode => ({ type: "text", text: textValue(b.pieces), style: textStyle(b.run, b.run.x - m.left, b.run.baseline - m.top) })),
      ...found.tables.filter((t) => t.page === index).map((t) => tableNode(t, m)),
    ];
    // One point short of the page area, so that rounding never spills a page onto a blank one.
    const style: Style = { position: "relative", height: pt(page.height - m.top - m.bottom - 1) };
    if (index < source.pages.length - 1) style.breakAfter = "page";
    return { type: "container", style, children: within(children) };
  });
  const first = source.pages[0]!;
  const properties: Record<string, DataSchema> = {};
  const sampleData: Record<string, unknown> = {};
  for (const f of found.fields) {
    properties[f.name] = { type: "string" };
    sampleData[f.name] = f.value;
  }
  for (const t of found.tables) {
    const columns = Object.fromEntries(t.columns.map((c): [string, DataSchema] => [c.name, { type: "string" }]));
    properties[t.name] = { type: "array", items: { type: "object", properties: columns, required: t.columns.map((c) => c.name) } };
    sampleData[t.name] = t.rows.map((row) => Object.fromEntries(t.columns.map((c, i) => [c.name, row[i]!.text])));
  }
  const draft: TemplateDraft = {
    content: { type: "container", children: pages },
    dataSchema: { type: "object", properties, required: Object.keys(properties) },
    page: { size: { width: mm(first.width), height: mm(first.height) }, margin: { top: mm(m.top), right: mm(m.right), bottom: mm(m.bottom), left: mm(m.left) } },
  };
  return { draft, sampleData };
}
