/** pointer: where a JSON pointer (RFC 6901, as in the API's `details[].path`) sits in JSON text, from Lezer's tree. */
import type { SyntaxNode, Tree } from "@lezer/common";

const PUNCTUATION = new Set(["{", "}", "[", "]", ",", ":", "⚠"]);

function elements(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) if (!PUNCTUATION.has(c.name)) out.push(c);
  return out;
}

function segments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** pointerRange answers the text range of what `pointer` names: a field as its whole property, an array item as
 * itself; for a field that is missing, the opening of the object that lacks it. */
export function pointerRange(tree: Tree, text: string, pointer: string): { from: number; to: number } {
  let node: SyntaxNode | null = tree.topNode.firstChild;
  if (!node) return { from: 0, to: Math.min(1, text.length) };
  let range = { from: node.from, to: node.to };
  for (const segment of segments(pointer)) {
    let next: SyntaxNode | null = null;
    if (node.name === "Object") {
      for (const property of node.getChildren("Property")) {
        const key = property.getChild("PropertyName");
        if (key && JSON.parse(text.slice(key.from, key.to)) === segment) {
          next = elements(property).find((v) => v.name !== "PropertyName") ?? null;
          range = { from: property.from, to: property.to };
          break;
        }
      }
    } else if (node.name === "Array" && /^\d+$/.test(segment)) {
      next = elements(node)[Number(segment)] ?? null;
      if (next) range = { from: next.from, to: next.to };
    }
    if (!next) return { from: node.from, to: node.from + 1 };
    node = next;
  }
  return range;
}
