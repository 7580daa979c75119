/**
 * render/compile/node-check: checking request bodies that hold trees of a recursive union discriminated by `type`
 * (CompositionNode, DocumentNode) so that each detail points at the field at fault.
 *
 * For a recursive union TypeBox (and so Elysia) reports one "Expected union value" at the outermost node, whatever is
 * wrong deep inside it; finding the culprit by TypeBox's own union errors re-checks the whole subtree at every level
 * (quadratic, and deep enough it overflows the stack). So a body is checked with every node stubbed out, and then each
 * node on its own against the branch its `type` names, walking the tree with an explicit stack.
 */
import { Kind, OptionalKind, Type, type TSchema } from "@sinclair/typebox";
import { Errors, ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import type { ErrorDetail } from "../../errors";
import { describeValueError } from "../../http/validation";
import { pointer } from "./pointer";
import { isObject } from "../../lib/is-object";

type JsKind = "string" | "number" | "boolean" | "null" | "array" | "object";

/** NodeChecker checks the nodes of one recursive union, e.g. `new NodeChecker(CompositionNode, ["children", "empty"])`. */
export class NodeChecker {
  private readonly id: string;
  private readonly branches: TSchema[];
  private readonly types: string[];

  /** `node` is the Type.Recursive union (with its $id); `childFields` name the arrays of child nodes. */
  constructor(node: TSchema, private readonly childFields: readonly string[]) {
    this.id = String(node.$id);
    this.branches = (node.anyOf as TSchema[]).map((branch) => this.withoutNodes(branch));
    this.types = this.branches.map((branch) => String(branch.properties.type.const));
  }

  /** withoutNodes answers a copy of `schema` in which every node accepts anything (object spread keeps TypeBox's symbol keys). */
  withoutNodes<T>(schema: T): T {
    if (Array.isArray(schema)) return schema.map((s) => this.withoutNodes(s)) as T;
    if (typeof schema !== "object" || schema === null) return schema;
    const s = schema as unknown as TSchema;
    if (s.$id === this.id || (s[Kind] === "This" && s.$ref === this.id)) return (s[OptionalKind] ? Type.Optional(Type.Unknown()) : Type.Unknown()) as T;
    const out: Record<string | symbol, unknown> = { ...s };
    for (const key of Object.keys(s)) out[key] = this.withoutNodes(s[key]);
    return out as T;
  }

  /** problems yields where the tree rooted at `root` breaks the node schema, in document order, pointers below `rootAt`. */
  *problems(root: unknown, rootAt: string): Generator<ErrorDetail> {
    const stack: [unknown, string][] = [[root, rootAt]];
    while (stack.length) {
      const [node, at] = stack.pop()!;
      if (!isObject(node)) {
        yield { path: at, message: "must be an object" };
        continue;
      }
      const i = typeof node.type === "string" ? this.types.indexOf(node.type) : -1;
      if (i < 0) {
        const allowed = this.types.join(", ");
        yield { path: pointer(at, "type"), message: node.type === undefined ? `is required (one of: ${allowed})` : `must be one of: ${allowed}` };
        continue;
      }
      yield* schemaProblems(this.branches[i]!, node, at);
      // Pushed last to first, so problems come out in document order.
      for (const field of [...this.childFields].reverse()) {
        const list = node[field];
        if (Array.isArray(list)) for (let j = list.length - 1; j >= 0; j--) stack.push([list[j], pointer(at, field, j)]);
      }
    }
  }
}

/** schemaProblems yields where `value` breaks a schema that holds no nodes (or only stubbed ones), pointers below `at`. */
export function* schemaProblems(schema: TSchema, value: unknown, at: string): Generator<ErrorDetail> {
  for (const e of Errors(schema, [], value)) yield* refine(e, at);
}

/** firstProblems answers the first `max` problems, one per JSON pointer: a body may hold thousands of bad nodes, and a
 * client needs the first few to fix the pattern. */
export function firstProblems(problems: Iterable<ErrorDetail>, max: number): ErrorDetail[] {
  const details = new Map<string, ErrorDetail>();
  for (const detail of problems) {
    if (!details.has(detail.path!)) details.set(detail.path!, detail);
    if (details.size >= max) break;
  }
  return [...details.values()];
}

function kindOf(value: unknown): JsKind {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const t = typeof value;
  return t === "string" || t === "number" || t === "boolean" ? t : "object";
}

// The JSON kinds a schema accepts.
function kindsOf(schema: TSchema): JsKind[] {
  switch (schema[Kind]) {
    case "String":
      return ["string"];
    case "Number":
    case "Integer":
      return ["number"];
    case "Boolean":
      return ["boolean"];
    case "Null":
      return ["null"];
    case "Literal":
      return [kindOf(schema.const)];
    case "Array":
      return ["array"];
    case "Object":
    case "Record":
      return ["object"];
    case "Union":
      return [...new Set((schema.anyOf as TSchema[]).flatMap(kindsOf))];
    default:
      return ["string", "number", "boolean", "null", "array", "object"];
  }
}

function unionMessage(branches: TSchema[]): string {
  const consts = branches.filter((b) => b[Kind] === "Literal").map((b) => String(b.const));
  const others = [...new Set(branches.filter((b) => b[Kind] !== "Literal").flatMap(kindsOf))].map((k) => (k === "null" ? k : k === "object" || k === "array" ? `an ${k}` : `a ${k}`));
  if (others.length === 0) return `must be one of: ${consts.join(", ")}`;
  const listed = [...consts, ...others];
  const alternatives = listed.length > 1 ? `${listed.slice(0, -1).join(", ")} or ${listed.at(-1)}` : listed[0];
  return consts.length ? `must be one of: ${alternatives}` : `must be ${alternatives}`;
}

// A union error says only that no branch matched; report the problems of the branch the value was meant to be: one
// of the value's own kind (a string for `"A6"`), the one with the fewest problems. None of these unions holds a node.
function* refine(e: ValueError, at: string): Generator<ErrorDetail> {
  if (e.type !== ValueErrorType.Union) return yield { path: at + e.path, message: describeValueError(e) };
  // A missing required field also visits the field's schema with `undefined`; "is required" was said already.
  if (e.value === undefined) return yield { path: at + e.path, message: "is required" };
  const branches = e.schema.anyOf as TSchema[];
  const kind = kindOf(e.value);
  const candidates = branches.map((_, i) => i).filter((i) => kindsOf(branches[i]!).includes(kind));
  if (candidates.length === 0 || candidates.every((i) => branches[i]![Kind] === "Literal")) return yield { path: at + e.path, message: unionMessage(branches) };
  const errors = candidates.map((i) => [...e.errors[i]!]);
  for (const inner of errors.reduce((a, b) => (b.length < a.length ? b : a))) yield* refine(inner, at);
}
