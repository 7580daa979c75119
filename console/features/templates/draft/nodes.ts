/** draft/nodes: the draft's composition nodes addressed by JSON pointer (`/content/children/2`, as the API's problem
 * paths name them), listed as an outline, and changed without mutating the draft (each change is a new draft, so
 * undo is a stack of drafts). */
import type { TemplateDraft } from "../../../../src/modules/templates/model";

/** Node is one composition node of a draft. */
export type Node = TemplateDraft["content"];
/** NodeType is a node's `type`. */
export type NodeType = Node["type"];
/** Draft is what the designer edits: the template's draft without its sample data, which has an editor of its own. */
export type Draft = Omit<TemplateDraft, "sampleData">;

/** The draft fields that hold a node tree of their own, in the order the outline shows them. */
export const ROOTS = ["content", "header", "footer"] as const;
type Root = (typeof ROOTS)[number];

/** OutlineItem is one node as the outline shows it. */
export interface OutlineItem {
  at: string;
  node: Node;
  depth: number;
  label: string;
  root: Root;
}

const segmentsOf = (at: string) => at.split("/").slice(1);

/** nodeAt answers the node at a pointer, or undefined when there is none. */
export function nodeAt(draft: Draft, at: string): Node | undefined {
  let value: unknown = draft;
  for (const s of segmentsOf(at)) value = value && typeof value === "object" ? (value as Record<string, unknown>)[s] : undefined;
  return value && typeof value === "object" && "type" in value ? (value as Node) : undefined;
}

/** hasChildren tells whether new nodes go inside this node (a container's or a repeat's children). */
export function hasChildren(node: Node): node is Extract<Node, { children: Node[] }> {
  return node.type === "container" || node.type === "repeat";
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

type ValueLike = string | number | boolean | { path: string[] } | { expression: string } | { parts: unknown[] };

/** valueLabel answers a value as the outline reads it: a literal as written, a path dotted, an expression after `=`. */
export function valueLabel(value: unknown): string {
  const v = value as ValueLike;
  if (typeof v !== "object" || v === null) return String(v);
  if ("path" in v) return v.path.join(".");
  if ("expression" in v) return `= ${v.expression}`;
  if ("parts" in v) return v.parts.map((p) => (typeof p === "object" && p !== null ? `{${valueLabel(p)}}` : String(p))).join("");
  return "";
}

/** nodeLabel is a node's accessible name in the outline: its type and its text or source, e.g. `text Invoice`,
 * `table lines`. */
export function nodeLabel(node: Node): string {
  const what = (() => {
    switch (node.type) {
      case "text":
        return valueLabel(node.text);
      case "table":
      case "repeat":
        return valueLabel(node.source);
      case "image":
        return valueLabel(node.assetId);
      case "component":
        return node.componentId;
      case "container":
        return node.className ?? "";
    }
  })();
  return clip(`${node.type} ${what}`.trim());
}

/** outline lists the draft's nodes in document order: the content, then the header and the footer. */
export function outline(draft: Draft): OutlineItem[] {
  const items: OutlineItem[] = [];
  const walk = (node: Node, at: string, depth: number, root: Root) => {
    items.push({ at, node, depth, label: nodeLabel(node), root });
    if (hasChildren(node)) node.children.forEach((child, i) => walk(child, `${at}/children/${i}`, depth + 1, root));
    if (node.type === "repeat") node.empty?.forEach((child, i) => walk(child, `${at}/empty/${i}`, depth + 1, root));
  };
  for (const root of ROOTS) {
    const node = draft[root];
    if (node) walk(node, `/${root}`, 0, root);
  }
  return items;
}

/** Place is a position in a list of nodes: the list's pointer and an index in it. */
export interface Place {
  list: string;
  index: number;
}

/** placeOf answers where a node sits in its parent's list, or null for a root node. */
export function placeOf(at: string): Place | null {
  const m = /^(.*\/(?:children|empty))\/(\d+)$/.exec(at);
  return m ? { list: m[1]!, index: Number(m[2]) } : null;
}

/** update answers a copy of `value` with `change` applied to what the segments lead to, copying only that path. */
function update(value: unknown, segments: string[], change: (old: unknown) => unknown): unknown {
  if (segments.length === 0) return change(value);
  const [head, ...rest] = segments as [string, ...string[]];
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[Number(head)] = update(copy[Number(head)], rest, change);
    return copy;
  }
  const record = (value ?? {}) as Record<string, unknown>;
  return { ...record, [head]: update(record[head], rest, change) };
}

/** replaceNode answers the draft with the node at `at` replaced. */
export function replaceNode(draft: Draft, at: string, node: Node): Draft {
  return update(draft, segmentsOf(at), () => node) as Draft;
}

function editList(draft: Draft, list: string, edit: (nodes: Node[]) => Node[]): Draft {
  return update(draft, segmentsOf(list), (old) => edit([...((old as Node[] | undefined) ?? [])])) as Draft;
}

/** insertNode answers the draft with `node` inserted at a place. */
export function insertNode(draft: Draft, place: Place, node: Node): Draft {
  return editList(draft, place.list, (nodes) => {
    nodes.splice(place.index, 0, node);
    return nodes;
  });
}

/** removeNode answers the draft without the node at `at`: a header or footer is removed whole; the content's root
 * cannot be (a template always has content), and the draft is answered unchanged. */
export function removeNode(draft: Draft, at: string): Draft {
  const place = placeOf(at);
  if (place) return editList(draft, place.list, (nodes) => nodes.filter((_, i) => i !== place.index));
  if (at === "/header" || at === "/footer") {
    const { [at.slice(1) as "header" | "footer"]: _, ...rest } = draft;
    return rest as Draft;
  }
  return draft;
}

/** isInside tells whether `at` is `ancestor` or lies below it. */
export function isInside(at: string, ancestor: string): boolean {
  return at === ancestor || at.startsWith(`${ancestor}/`);
}

/** moveNode answers the draft with the node at `from` moved to a place given as it is before the move, and where it
 * is then; null when the move is impossible (into itself, or a root node). */
export function moveNode(draft: Draft, from: string, to: Place): { draft: Draft; at: string } | null {
  const source = placeOf(from);
  const node = nodeAt(draft, from);
  if (!source || !node || isInside(to.list, from)) return null;
  let index = to.index;
  let list = to.list;
  if (list === source.list && source.index < index) index -= 1;
  // A list below the node's old position in the same parent list shifts up by one once the node has left it.
  const prefix = `${source.list}/`;
  if (list.startsWith(prefix)) {
    const [i, ...rest] = list.slice(prefix.length).split("/");
    if (Number(i) > source.index) list = `${source.list}/${Number(i) - 1}/${rest.join("/")}`;
  }
  const without = removeNode(draft, from);
  return { draft: insertNode(without, { list, index }, node), at: `${list}/${index}` };
}

/** placeAfter answers where a node added "after the selected one" goes: inside a selected container or repeat (at
 * its end), else just after the selected node; with nothing selected, at the end of the content's root container. */
export function placeAfter(draft: Draft, selected: string | null): Place | null {
  const at = selected ?? "/content";
  const node = nodeAt(draft, at);
  if (!node) return null;
  if (hasChildren(node)) return { list: `${at}/children`, index: node.children.length };
  const place = placeOf(at);
  return place ? { list: place.list, index: place.index + 1 } : null;
}

/** wrapRoot answers the draft with a root node that is not a container put inside one, so nodes can be added beside it. */
export function wrapRoot(draft: Draft, root: Root): Draft {
  const node = draft[root];
  if (!node || hasChildren(node)) return draft;
  return { ...draft, [root]: { type: "container", children: [node] } };
}

/** nodeOfProblem answers the pointer of the deepest node a problem's path lies in (a path such as
 * `/content/children/1/text/path`), or null when it names no node. */
export function nodeOfProblem(draft: Draft, path: string): string | null {
  let best: string | null = null;
  for (const item of outline(draft)) if (isInside(path, item.at) && (best === null || item.at.length > best.length)) best = item.at;
  return best;
}
