/** html: composition nodes and data to HTML; every value from data or the template reaches the output escaped. Rendering
 * is asynchronous because computed values are (expressions.ts); everything else answers at once. */
import { ApiError } from "../../errors";
import { isIdentifier } from "../../lib/ids";
import type { ParsedExpression } from "./check";
import { attributes, escapeHtml } from "./escape";
import type { Evaluation } from "./expressions";
import type { FormatterCache } from "./format";
import type { CompositionNode, Style, TextValue, Value, ValueExpression, ValueReference } from "./model";
import { cssDeclarations } from "./style";
import { isExpression, isVisible, lookup, pageClass, valueText, type Scopes } from "./values";

/** RenderContext is what rendering needs besides the node and the data. */
export interface RenderContext {
  components: Record<string, CompositionNode>;
  formats: FormatterCache;
  assetUrl: (assetId: string) => string;
  // Nodes left before the document is too big: components nest and repeats multiply, so the size is only known now.
  budget: { nodes: number; limit: number };
  /** The template's computed values, parsed (check.ts), and the render's evaluation of them. */
  expressions: ReadonlyMap<ValueExpression, ParsedExpression>;
  evaluation: Evaluation;
}

function spend(context: RenderContext, nodes = 1): void {
  context.budget.nodes -= nodes;
  if (context.budget.nodes < 0) {
    throw new ApiError("LIMIT_EXCEEDED", `the document has more than ${context.budget.limit} nodes`);
  }
}

/** valueOf answers what a value reference finds in the data, or what a computed value evaluates to. */
function valueOf(value: Value, scopes: Scopes, context: RenderContext): unknown {
  if (!isExpression(value)) return lookup(scopes, value.path, value.scope);
  // Every expression of a compiled template was parsed by the check; the map holds them all.
  const { expression, at } = context.expressions.get(value)!;
  return context.evaluation.evaluate(expression, scopes.current, at);
}

function referenceHtml(reference: ValueReference, scopes: Scopes, context: RenderContext): string {
  const page = pageClass(reference);
  if (page) {
    // Chromium fills these in while printing the header and footer; the check keeps them out of the body.
    return `${escapeHtml(reference.prefix ?? "")}<span class="${page}"></span>${escapeHtml(reference.suffix ?? "")}`;
  }
  return escapeHtml(valueText(reference, lookup(scopes, reference.path, reference.scope), context.formats));
}

async function valueHtml(value: Value, scopes: Scopes, context: RenderContext): Promise<string> {
  if (!isExpression(value)) return referenceHtml(value, scopes, context);
  return escapeHtml(valueText(value, await valueOf(value, scopes, context), context.formats));
}

/** isComputed tells a text value that holds a computed value (and so must be awaited) from one that is read at once. */
export function isComputed(value: TextValue): boolean {
  if (typeof value !== "object") return false;
  return "parts" in value ? value.parts.some((part) => typeof part === "object" && isExpression(part)) : isExpression(value);
}

/** plainTextHtml renders a text value without computed values (isComputed false) as escaped text, at once. */
function plainTextHtml(value: TextValue, scopes: Scopes, context: RenderContext): string {
  if (typeof value !== "object") return escapeHtml(String(value));
  if (!("parts" in value)) return referenceHtml(value as ValueReference, scopes, context);
  return value.parts.map((part) => (typeof part === "object" ? referenceHtml(part as ValueReference, scopes, context) : escapeHtml(String(part)))).join("");
}

/** textHtml renders a literal, a value reference, a computed value or parts as escaped text. */
export async function textHtml(value: TextValue, scopes: Scopes, context: RenderContext): Promise<string> {
  if (!isComputed(value)) return plainTextHtml(value, scopes, context);
  if (typeof value !== "object" || !("parts" in value)) return valueHtml(value as Value, scopes, context);
  let out = "";
  for (const part of value.parts) out += typeof part === "object" ? await valueHtml(part, scopes, context) : escapeHtml(String(part));
  return out;
}

// A template's style objects are the same objects for every render of a published version (templates/service.ts keeps
// its source) and nothing changes them: each is written as CSS once.
const declarations = new WeakMap<Style, string>();

function styleOf(style: Style | undefined): string {
  if (!style) return "";
  let css = declarations.get(style);
  if (css === undefined) {
    css = cssDeclarations(style);
    declarations.set(style, css);
  }
  return css;
}

/** classOf joins a node's className and its Tailwind classes. */
export function classOf(node: { className?: string; tw?: string }): string | undefined {
  return node.tw ? (node.className ? `${node.className} ${node.tw}` : node.tw) : node.className;
}

function element(tag: string, node: { className?: string; tw?: string; style?: Style }, inner: string): string {
  return `<${tag}${attributes({ class: classOf(node), style: styleOf(node.style) })}>${inner}</${tag}>`;
}

async function nodesHtml(nodes: CompositionNode[], scopes: Scopes, context: RenderContext): Promise<string> {
  let out = "";
  for (const node of nodes) out += await renderNode(node, scopes, context);
  return out;
}

async function imageHtml(node: Extract<CompositionNode, { type: "image" }>, scopes: Scopes, context: RenderContext): Promise<string> {
  const assetId = typeof node.assetId === "string" ? node.assetId : valueText(node.assetId, await valueOf(node.assetId, scopes, context), context.formats);
  // An id taken from data must still be an id: it must not become a URL or a path of the caller's choosing.
  if (!isIdentifier(assetId)) return "";
  const attrs = attributes({
    class: classOf(node),
    style: styleOf(node.style),
    src: context.assetUrl(assetId),
    width: node.width,
    height: node.height,
  });
  return `<img${attrs} alt="">`;
}

async function rows(source: Value, scopes: Scopes, context: RenderContext): Promise<unknown[]> {
  const value = await valueOf(source, scopes, context);
  if (Array.isArray(value)) return value;
  // JSONata answers a list of one item as the item itself: a computed source that is not a list is one row.
  if (isExpression(source) && value !== undefined && value !== null) return [value];
  // A missing source, or one that is not a list, renders as an empty list.
  return [];
}

async function repeatHtml(node: Extract<CompositionNode, { type: "repeat" }>, scopes: Scopes, context: RenderContext): Promise<string> {
  const items = await rows(node.source, scopes, context);
  if (items.length === 0) return element("div", node, await nodesHtml(node.empty ?? [], scopes, context));
  let inner = "";
  for (const item of items) inner += await nodesHtml(node.children, { root: scopes.root, current: item }, context);
  return element("div", node, inner);
}

type TableNode = Extract<CompositionNode, { type: "table" }>;

function colgroupHtml(node: TableNode): string {
  if (node.columns.every((column) => column.width === undefined)) return "";
  const cols = node.columns.map((c) => `<col${attributes({ style: c.width && `width:${c.width}px` })}>`);
  return `<colgroup>${cols.join("")}</colgroup>`;
}

// Column `style` is applied after headerStyle and cellStyle, so one column can differ from the rest.
function theadHtml(node: TableNode): string {
  if (node.showHeader === false) return "";
  const cells = node.columns.map(
    (c) => `<th${attributes({ style: cssDeclarations(node.headerStyle, c.style) })}>${escapeHtml(c.header)}</th>`,
  );
  return `<thead><tr>${cells.join("")}</tr></thead>`;
}

// `cells` are the columns' `<td…>` opening tags, the same in every row. A table may have thousands of rows: only the
// cells of computed columns are awaited, the others are read at once (an await per cell doubled a 1000-row report).
async function rowHtml(node: TableNode, cells: string[], computed: boolean[], scopes: Scopes, context: RenderContext): Promise<string> {
  let out = "<tr>";
  for (let i = 0; i < node.columns.length; i++) {
    const value = node.columns[i]!.value;
    out += `${cells[i]}${computed[i] ? await textHtml(value, scopes, context) : plainTextHtml(value, scopes, context)}</td>`;
  }
  return `${out}</tr>`;
}

async function tbodyHtml(node: TableNode, scopes: Scopes, context: RenderContext): Promise<string> {
  const items = await rows(node.source, scopes, context);
  spend(context, items.length * node.columns.length);
  const cells = node.columns.map((c) => `<td${attributes({ style: cssDeclarations(node.cellStyle, c.style) })}>`);
  const computed = node.columns.map((c) => isComputed(c.value));
  let body = "";
  for (const item of items) body += await rowHtml(node, cells, computed, { root: scopes.root, current: item }, context);
  if (items.length === 0 && node.emptyText !== undefined) {
    const attrs = attributes({ colspan: node.columns.length, style: cssDeclarations(node.cellStyle) });
    body = `<tr><td${attrs}>${escapeHtml(node.emptyText)}</td></tr>`;
  }
  return `<tbody>${body}</tbody>`;
}

async function tableHtml(node: TableNode, scopes: Scopes, context: RenderContext): Promise<string> {
  return element("table", node, colgroupHtml(node) + theadHtml(node) + (await tbodyHtml(node, scopes, context)));
}

type ComponentNode = Extract<CompositionNode, { type: "component" }>;

async function componentHtml(node: ComponentNode, scopes: Scopes, context: RenderContext): Promise<string> {
  const current = node.data ? ((await valueOf(node.data, scopes, context)) ?? node.data.fallback) : scopes.current;
  const tree = context.components[node.componentId];
  return element("div", node, await renderNode(tree, { root: scopes.root, current }, context));
}

/** renderNode renders one composition node in its scopes; a node whose visibleWhen fails renders nothing. */
export async function renderNode(node: CompositionNode, scopes: Scopes, context: RenderContext): Promise<string> {
  if (!isVisible(node.visibleWhen, scopes)) return "";
  spend(context);
  switch (node.type) {
    case "container":
      return element("div", node, await nodesHtml(node.children, scopes, context));
    case "text":
      return element("div", node, await textHtml(node.text, scopes, context));
    case "image":
      return imageHtml(node, scopes, context);
    case "repeat":
      return repeatHtml(node, scopes, context);
    case "table":
      return tableHtml(node, scopes, context);
    case "component":
      return componentHtml(node, scopes, context);
  }
}
