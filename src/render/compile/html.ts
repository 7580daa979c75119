/** html: composition nodes and data to HTML; every value from data or the template reaches the output escaped. */
import { ApiError } from "../../errors";
import { isIdentifier } from "../../lib/ids";
import { attributes, escapeHtml } from "./escape";
import type { FormatterCache } from "./format";
import type { CompositionNode, Style, TextValue, ValueReference } from "./model";
import { cssDeclarations } from "./style";
import { isReference, isVisible, lookup, pageClass, referenceText, type Scopes } from "./values";

/** RenderContext is what rendering needs besides the node and the data. */
export interface RenderContext {
  components: Record<string, CompositionNode>;
  formats: FormatterCache;
  assetUrl: (assetId: string) => string;
  // Nodes left before the document is too big: components nest and repeats multiply, so the size is only known now.
  budget: { nodes: number; limit: number };
}

function spend(context: RenderContext, nodes = 1): void {
  context.budget.nodes -= nodes;
  if (context.budget.nodes < 0) {
    throw new ApiError("LIMIT_EXCEEDED", `the document has more than ${context.budget.limit} nodes`);
  }
}

function referenceHtml(reference: ValueReference, scopes: Scopes, context: RenderContext): string {
  const page = pageClass(reference);
  if (page) {
    // Chromium fills these in while printing the header and footer; the check keeps them out of the body.
    return `${escapeHtml(reference.prefix ?? "")}<span class="${page}"></span>${escapeHtml(reference.suffix ?? "")}`;
  }
  return escapeHtml(referenceText(reference, scopes, context.formats));
}

/** textHtml renders a literal, a value reference or parts as escaped text. */
export function textHtml(value: TextValue, scopes: Scopes, context: RenderContext): string {
  if (typeof value !== "object") return escapeHtml(String(value));
  if (isReference(value)) return referenceHtml(value, scopes, context);
  return value.parts
    .map((part) => (typeof part === "object" ? referenceHtml(part, scopes, context) : escapeHtml(String(part))))
    .join("");
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

function element(tag: string, node: { className?: string; style?: Style }, inner: string): string {
  return `<${tag}${attributes({ class: node.className, style: styleOf(node.style) })}>${inner}</${tag}>`;
}

function nodesHtml(nodes: CompositionNode[], scopes: Scopes, context: RenderContext): string {
  return nodes.map((node) => renderNode(node, scopes, context)).join("");
}

function imageHtml(node: Extract<CompositionNode, { type: "image" }>, scopes: Scopes, context: RenderContext): string {
  const assetId = typeof node.assetId === "string" ? node.assetId : referenceText(node.assetId, scopes, context.formats);
  // An id taken from data must still be an id: it must not become a URL or a path of the caller's choosing.
  if (!isIdentifier(assetId)) return "";
  const attrs = attributes({
    class: node.className,
    style: styleOf(node.style),
    src: context.assetUrl(assetId),
    width: node.width,
    height: node.height,
  });
  return `<img${attrs} alt="">`;
}

function rows(source: ValueReference, scopes: Scopes): unknown[] {
  const value = lookup(scopes, source.path, source.scope);
  // A missing source, or one that is not a list, renders as an empty list.
  return Array.isArray(value) ? value : [];
}

function repeatHtml(node: Extract<CompositionNode, { type: "repeat" }>, scopes: Scopes, context: RenderContext): string {
  const items = rows(node.source, scopes);
  if (items.length === 0) return element("div", node, nodesHtml(node.empty ?? [], scopes, context));
  const inner = items.map((item) => nodesHtml(node.children, { root: scopes.root, current: item }, context)).join("");
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

// `cells` are the columns' `<td…>` opening tags, the same in every row.
function rowHtml(node: TableNode, cells: string[], scopes: Scopes, context: RenderContext): string {
  return `<tr>${node.columns.map((c, i) => `${cells[i]}${textHtml(c.value, scopes, context)}</td>`).join("")}</tr>`;
}

function tbodyHtml(node: TableNode, scopes: Scopes, context: RenderContext): string {
  const items = rows(node.source, scopes);
  spend(context, items.length * node.columns.length);
  const cells = node.columns.map((c) => `<td${attributes({ style: cssDeclarations(node.cellStyle, c.style) })}>`);
  let body = items.map((item) => rowHtml(node, cells, { root: scopes.root, current: item }, context)).join("");
  if (items.length === 0 && node.emptyText !== undefined) {
    const attrs = attributes({ colspan: node.columns.length, style: cssDeclarations(node.cellStyle) });
    body = `<tr><td${attrs}>${escapeHtml(node.emptyText)}</td></tr>`;
  }
  return `<tbody>${body}</tbody>`;
}

function tableHtml(node: TableNode, scopes: Scopes, context: RenderContext): string {
  return element("table", node, colgroupHtml(node) + theadHtml(node) + tbodyHtml(node, scopes, context));
}

type ComponentNode = Extract<CompositionNode, { type: "component" }>;

function componentHtml(node: ComponentNode, scopes: Scopes, context: RenderContext): string {
  const current = node.data ? (lookup(scopes, node.data.path, node.data.scope) ?? node.data.fallback) : scopes.current;
  const tree = context.components[node.componentId];
  return element("div", node, renderNode(tree, { root: scopes.root, current }, context));
}

/** renderNode renders one composition node in its scopes; a node whose visibleWhen fails renders nothing. */
export function renderNode(node: CompositionNode, scopes: Scopes, context: RenderContext): string {
  if (!isVisible(node.visibleWhen, scopes)) return "";
  spend(context);
  switch (node.type) {
    case "container":
      return element("div", node, nodesHtml(node.children, scopes, context));
    case "text":
      return element("div", node, textHtml(node.text, scopes, context));
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
