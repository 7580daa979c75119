/** check: everything that makes a template not compile (DESIGN.md 4), each problem with a JSON pointer to the node;
 * on the way it parses the computed values and gathers the Tailwind classes, which the renderer needs. */
import type { ErrorDetail } from "../../errors";
import { itemSchemas, schemasAt } from "./data";
import { parseExpression, type Expression } from "./expressions";
import { formatProblem } from "./format";
import type { CompositionNode, DataSchema, Scope, Style, TemplateSource, Value, ValueExpression } from "./model";
import type { TextValue, ValueReference, VisibleWhen } from "./model";
import { pointer } from "./pointer";
import { styleProblem } from "./style";
import { twClasses } from "./tailwind";
import { isExpression, isPageReference, pageClass } from "./values";

type Components = Record<string, CompositionNode>;

// What a path can be checked against where a node sits. `undefined` means unknown (no data schema, a component
// never used, or a source already reported as bad): nothing is checked against it, so one mistake is one problem.
interface Context {
  root: DataSchema[] | undefined;
  current: DataSchema[] | undefined;
  // Page number and count exist only in the header and footer, which Chromium prints apart from the body.
  pageValues: boolean;
}

// A node's child nodes with their pointers: container and repeat children, and repeat's empty.
function childNodes(node: CompositionNode, at: string): [CompositionNode, string][] {
  if (node.type === "container") return node.children.map((child, i) => [child, pointer(at, "children", i)]);
  if (node.type !== "repeat") return [];
  return [
    ...node.children.map((child, i): [CompositionNode, string] => [child, pointer(at, "children", i)]),
    ...(node.empty ?? []).map((child, i): [CompositionNode, string] => [child, pointer(at, "empty", i)]),
  ];
}

const MARGINAL_CLASSES = new Set(["date", "title", "url", "pageNumber", "totalPages"]);

type ComponentUse = { id: string; at: string };

function componentUses(node: CompositionNode, at: string, out: ComponentUse[] = []): ComponentUse[] {
  if (node.type === "component") out.push({ id: node.componentId, at: pointer(at, "componentId") });
  for (const [child, childAt] of childNodes(node, at)) componentUses(child, childAt, out);
  return out;
}

/** componentCycles reports each cycle of components (a uses b uses a) at the use that closes it. */
export function componentCycles(components: Components): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (id: string, trail: string[]): void => {
    state.set(id, "open");
    for (const use of componentUses(components[id], pointer("", "components", id))) {
      if (!Object.hasOwn(components, use.id)) continue; // an unknown component is the checker's problem
      const seen = state.get(use.id);
      if (seen === "open") {
        const loop = [...trail.slice(trail.indexOf(use.id)), use.id];
        problems.push({ path: use.at, message: `component cycle: ${loop.join(" → ")}` });
      } else if (!seen) visit(use.id, [...trail, use.id]);
    }
    state.set(id, "done");
  };
  for (const id of Object.keys(components)) if (!state.has(id)) visit(id, [id]);
  return problems;
}

/** ParsedExpression is a template's computed value, parsed, with the pointer an evaluation error names. */
export interface ParsedExpression {
  expression: Expression;
  at: string;
}

/** TemplateCheck is what checking a template finds: its problems, its parsed computed values, and its Tailwind classes
 * (each with the pointer of its first use). */
export interface TemplateCheck {
  problems: ErrorDetail[];
  expressions: Map<ValueExpression, ParsedExpression>;
  classes: Map<string, string>;
}

class TemplateChecker {
  readonly expressions = new Map<ValueExpression, ParsedExpression>();
  readonly classes = new Map<string, string>();
  private readonly problems = new Map<string, ErrorDetail>();
  private readonly checkedComponents = new Set<string>();
  private readonly usedComponents = new Set<string>();
  private readonly schemaIds = new Map<DataSchema, number>();

  constructor(private readonly components: Components) {}

  result(): ErrorDetail[] {
    return [...this.problems.values()];
  }

  // Chromium fills elements of these classes in a header or footer with its own values (the host's date and
  // time, about:blank, page numbers), wiping the node's content.
  marginalClasses(className: string | undefined, at: string): void {
    const reserved = (className ?? "").split(/\s+/).filter((name) => MARGINAL_CLASSES.has(name));
    if (reserved.length)
      this.add(at, `${reserved.join(", ")} ${reserved.length > 1 ? "are" : "is"} reserved in the header and footer (Chromium fills date, title, url, pageNumber and totalPages itself)`);
  }

  add(path: string, message: string): void {
    // A component used from several places is checked once per context; the same problem is reported once.
    this.problems.set(`${path}\n${message}`, { path, message });
  }

  node(node: CompositionNode, at: string, context: Context, stack: string[]): void {
    this.style(node.style, pointer(at, "style"));
    for (const name of twClasses(node.tw)) if (!this.classes.has(name)) this.classes.set(name, pointer(at, "tw"));
    if (context.pageValues) {
      this.marginalClasses(node.className, pointer(at, "className"));
      this.marginalClasses(node.tw, pointer(at, "tw"));
    }
    this.visibleWhen(node.visibleWhen, pointer(at, "visibleWhen"), context);
    switch (node.type) {
      case "container":
        node.children.forEach((child, i) => this.node(child, pointer(at, "children", i), context, stack));
        return;
      case "text":
        this.text(node.text, pointer(at, "text"), context);
        return;
      case "image":
        if (typeof node.assetId !== "string") this.value(node.assetId, pointer(at, "assetId"), context);
        return;
      case "repeat": {
        const item = { ...context, current: this.source(node.source, pointer(at, "source"), context) };
        node.children.forEach((child, i) => this.node(child, pointer(at, "children", i), item, stack));
        node.empty?.forEach((child, i) => this.node(child, pointer(at, "empty", i), context, stack));
        return;
      }
      case "table": {
        const row = { ...context, current: this.source(node.source, pointer(at, "source"), context) };
        node.columns.forEach((column, i) => {
          this.text(column.value, pointer(at, "columns", i, "value"), row);
          this.style(column.style, pointer(at, "columns", i, "style"));
        });
        this.style(node.headerStyle, pointer(at, "headerStyle"));
        this.style(node.cellStyle, pointer(at, "cellStyle"));
        return;
      }
      case "component": {
        const current = node.data ? this.value(node.data, pointer(at, "data"), context) : context.current;
        if (!Object.hasOwn(this.components, node.componentId)) {
          this.add(pointer(at, "componentId"), `unknown component "${node.componentId}"`);
        } else this.component(node.componentId, { ...context, current }, stack);
        return;
      }
    }
  }

  component(id: string, context: Context, stack: string[]): void {
    if (stack.includes(id)) return; // a cycle, reported by componentCycles
    this.usedComponents.add(id);
    const schemas = context.current?.map((schema) => this.schemaId(schema)).join(",") ?? "?";
    const key = `${id}\n${context.pageValues}\n${schemas}`;
    if (this.checkedComponents.has(key)) return;
    this.checkedComponents.add(key);
    this.node(this.components[id], pointer("", "components", id), context, [...stack, id]);
  }

  unusedComponents(root: DataSchema[] | undefined): void {
    for (const id of Object.keys(this.components)) {
      // Its data is unknown until it is used, and it may yet be used in a header: check what can be checked.
      if (!this.usedComponents.has(id)) this.component(id, { root, current: undefined, pageValues: true }, []);
    }
  }

  text(value: TextValue, at: string, context: Context): void {
    if (typeof value !== "object") return;
    if (!("parts" in value)) {
      this.value(value, at, context, true);
      return;
    }
    value.parts.forEach((part, i) => {
      if (typeof part === "object") this.value(part, pointer(at, "parts", i), context, true);
    });
  }

  /** value checks a value reference or computed value and answers the schemas it lands on (undefined when unknown, bad,
   * or computed: an expression's result has no schema). */
  value(value: Value, at: string, context: Context, isText = false): DataSchema[] | undefined {
    if (value.format) {
      const problem = formatProblem(value.format);
      if (problem) this.add(pointer(at, "format"), problem);
    }
    if (isExpression(value)) {
      this.expression(value, at);
      return undefined;
    }
    return this.reference(value, at, context, isText);
  }

  expression(value: ValueExpression, at: string): void {
    const parsed = parseExpression(value.expression);
    if ("problem" in parsed) this.add(pointer(at, "expression"), parsed.problem);
    else this.expressions.set(value, { expression: parsed.ok, at: pointer(at, "expression") });
  }

  /** reference checks a value reference's path and answers the schemas it lands on (undefined when unknown or bad). */
  reference(reference: ValueReference, at: string, context: Context, isText: boolean): DataSchema[] | undefined {
    if (isPageReference(reference)) {
      const problem = !isText
        ? "page values can only be shown as text"
        : !context.pageValues
          ? "page values are only available in the header and footer"
          : pageClass(reference)
            ? undefined
            : 'must be ["$page","number"] or ["$page","count"]';
      if (problem) this.add(pointer(at, "path"), problem);
      return undefined;
    }
    return this.path(reference.path, reference.scope, pointer(at, "path"), context);
  }

  path(path: string[], scope: Scope | undefined, at: string, context: Context): DataSchema[] | undefined {
    const base = scope === "root" ? context.root : context.current;
    if (!base) return undefined;
    const found = schemasAt(base, path);
    if (found.length > 0) return found;
    this.add(at, `${JSON.stringify(path)} is not a property of the data schema`);
    return undefined;
  }

  source(source: Value, at: string, context: Context): DataSchema[] | undefined {
    const found = this.value(source, at, context);
    if (!found) return undefined;
    if (!found.some(describesArray)) {
      this.add(pointer(at, "path"), "must point at an array in the data schema");
      return undefined;
    }
    // An array without `items` describes no property of its rows: references into them are problems.
    return itemSchemas(found);
  }

  visibleWhen(when: VisibleWhen | undefined, at: string, context: Context): void {
    if (!when) return;
    if ((when.operator === "equals" || when.operator === "notEquals") && when.value === undefined) {
      this.add(pointer(at, "value"), `is required with operator ${when.operator}`);
    }
    if (when.path[0] === "$page") this.add(pointer(at, "path"), "page values can only be shown as text");
    else this.path(when.path, when.scope, pointer(at, "path"), context);
  }

  style(style: Style | undefined, at: string): void {
    for (const [key, value] of Object.entries(style ?? {})) {
      const problem = styleProblem(key, value);
      if (problem) this.add(pointer(at, key), problem);
    }
  }

  // Contexts are told apart by the identity of their schemas, so a component is not re-checked for each use.
  private schemaId(schema: DataSchema): number {
    let id = this.schemaIds.get(schema);
    if (id === undefined) {
      id = this.schemaIds.size;
      this.schemaIds.set(schema, id);
    }
    return id;
  }
}

function describesArray(schema: DataSchema): boolean {
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  return schema.items !== undefined || types.includes("array") || (schema.anyOf ?? []).some(describesArray);
}

/** checkTemplate lists why a template does not compile — unknown or cyclic components, references into no schema
 * property, page values outside header and footer, expressions that do not parse, bad formats, conditions and styles —
 * with what the renderer needs of a template that does. */
export function checkTemplate(template: TemplateSource): TemplateCheck {
  const components = template.components ?? {};
  const checker = new TemplateChecker(components);
  const root = template.dataSchema ? [template.dataSchema] : undefined;
  // spec 2.12 leaves the default scope open: it is `current`, and at the top level the current value is the root.
  checker.node(template.content, "/content", { root, current: root, pageValues: false }, []);
  if (template.header) checker.node(template.header, "/header", { root, current: root, pageValues: true }, []);
  if (template.footer) checker.node(template.footer, "/footer", { root, current: root, pageValues: true }, []);
  checker.unusedComponents(root);
  return { problems: [...checker.result(), ...componentCycles(components)], expressions: checker.expressions, classes: checker.classes };
}
