/** draft/values: a node's value as the designer's fields show it and back. The *Text* field writes a literal, or parts
 * when it holds placeholders — `Page {$page.number} of {$page.count}`, `No. {number}`, `{= quantity * price}` — and
 * keeps each placeholder's format when the text around it changes; *Data path* is a dotted path; *Expression* is
 * JSONata. */
import type { Node } from "./nodes";

/** TextValue is what a text node or a table cell shows. */
export type TextValue = Extract<Node, { type: "text" }>["text"];
type Parts = Extract<TextValue, { parts: unknown[] }>;
type Part = Parts["parts"][number];
/** Reference reads one value from the data; Computed computes one with an expression. */
export type Reference = Extract<TextValue, { path: string[] }>;
export type Computed = Extract<TextValue, { expression: string }>;

/** ValueKind is which of the three fields holds a value. */
export type ValueKind = "text" | "path" | "expression";

/** kindOf answers which field shows a value: literals and parts are text. */
export function kindOf(value: unknown): ValueKind {
  if (typeof value === "object" && value !== null) {
    if ("path" in value) return "path";
    if ("expression" in value) return "expression";
  }
  return "text";
}

/** dotted writes a path as the Data path field shows it. */
export const dotted = (path: readonly string[]) => path.join(".");

/** pathOf reads a Data path field: dot-separated names (empty segments dropped). */
export const pathOf = (text: string) => text.split(".").map((s) => s.trim()).filter(Boolean);

/** samePath answers a Data path field's text as the draft writes it back. */
export const samePath = (text: string) => dotted(pathOf(text));

function placeholder(part: Exclude<Part, string | number | boolean>): string {
  return "path" in part ? `{${dotted(part.path)}}` : `{= ${part.expression}}`;
}

/** textOf answers what the Text field shows for a literal or parts ("" for a reference or expression). */
export function textOf(value: unknown): string {
  if (typeof value !== "object" || value === null) return value === undefined ? "" : String(value);
  if ("parts" in value) return (value as Parts).parts.map((p) => (typeof p === "object" ? placeholder(p) : String(p))).join("");
  return "";
}

/** fromText reads the Text field: a literal without placeholders, else parts, each placeholder keeping the format,
 * prefix and the rest of a part of the same path or expression in `before`. */
export function fromText(text: string, before?: unknown): TextValue {
  const pieces = text.split(/(\{[^{}]+\})/).filter((p) => p !== "");
  if (!pieces.some((p) => /^\{[^{}]+\}$/.test(p))) return text;
  const old = typeof before === "object" && before !== null && "parts" in before ? (before as Parts).parts.filter((p): p is Exclude<Part, string | number | boolean> => typeof p === "object") : [];
  const parts = pieces.map((piece): Part => {
    const m = /^\{([^{}]+)\}$/.exec(piece);
    if (!m) return piece;
    const inside = m[1]!.trim();
    const made: Part = inside.startsWith("=") ? { expression: inside.slice(1).trim() } : { path: pathOf(inside) };
    return old.find((p) => placeholder(p) === placeholder(made)) ?? made;
  });
  return { parts } as Parts;
}

/** withPath answers the value reading `path`, keeping the format and the rest of a reference or expression it replaces. */
export function withPath(path: string, before: unknown): TextValue {
  const { expression: _, ...rest } = (kindOf(before) === "text" ? {} : before) as Partial<Computed>;
  return { ...rest, path: pathOf(path) } as Reference;
}

/** withExpression answers the value computing `expression`, keeping the format and the rest of what it replaces. */
export function withExpression(expression: string, before: unknown): TextValue {
  const { path: _, scope: __, ...rest } = (kindOf(before) === "text" ? {} : before) as Partial<Reference>;
  return { ...rest, expression } as Computed;
}

/** sameText answers a Text field's text as the draft writes it back. */
export const sameText = (text: string) => textOf(fromText(text));
