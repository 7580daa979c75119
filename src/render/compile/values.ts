/** values: reading the data at render time — paths, value references and visibleWhen conditions. */
import { isObject } from "../../lib/is-object";
import type { FormatterCache } from "./format";
import type { Parts, Scope, TextValue, Value, ValueExpression, ValueReference, VisibleWhen } from "./model";

/** Scopes holds the two places a path can start from. */
export interface Scopes {
  root: unknown;
  current: unknown;
}

const ARRAY_INDEX = /^(0|[1-9]\d*)$/;

/** isArrayIndex tells a path segment that names an array element ("0", "12"; not "01" or "-1"). */
export function isArrayIndex(segment: string): boolean {
  return ARRAY_INDEX.test(segment);
}

/** lookup walks a path through own properties and array indexes only; anything else is undefined. */
export function lookup(scopes: Scopes, path: string[], scope: Scope = "current"): unknown {
  let value = scopes[scope];
  for (const segment of path) {
    if (Array.isArray(value)) value = isArrayIndex(segment) ? value[Number(segment)] : undefined;
    // Own properties only: a path such as ["constructor", "name"] must not reach into prototypes.
    else if (isObject(value) && Object.hasOwn(value, segment)) value = value[segment];
    else return undefined;
  }
  return value;
}

/** isReference tells a value reference from a literal, a computed value or parts. */
export function isReference(value: TextValue | Parts["parts"][number]): value is ValueReference {
  return typeof value === "object" && "path" in value;
}

/** isExpression tells a computed value from a literal, a value reference or parts. */
export function isExpression(value: TextValue | Parts["parts"][number]): value is ValueExpression {
  return typeof value === "object" && "expression" in value;
}

/** valueText gives prefix + (formatted) value + suffix, or the bare fallback when the value is missing. */
export function valueText(value: Value, found: unknown, formats: FormatterCache): string {
  // An object or array has no text of its own: it is shown like a missing value rather than as "[object Object]".
  if (found === undefined || found === null || typeof found === "object") {
    return value.fallback === undefined ? "" : String(value.fallback);
  }
  const text = (value.format && formats.format(value.format, found)) ?? String(found);
  return (value.prefix ?? "") + text + (value.suffix ?? "");
}

/** referenceText gives the text of a value reference: valueText of the value its path finds. */
export function referenceText(reference: ValueReference, scopes: Scopes, formats: FormatterCache): string {
  return valueText(reference, lookup(scopes, reference.path, reference.scope), formats);
}

/** isTruthy is JavaScript truthiness, except that an empty array is falsy (an empty list is "nothing"). */
export function isTruthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

/** isVisible evaluates a visibleWhen condition; equals and notEquals compare strictly (1 is not "1"). */
export function isVisible(when: VisibleWhen | undefined, scopes: Scopes): boolean {
  if (!when) return true;
  const value = lookup(scopes, when.path, when.scope);
  switch (when.operator) {
    case "truthy":
      return isTruthy(value);
    case "falsy":
      return !isTruthy(value);
    case "equals":
      return value === when.value;
    case "notEquals":
      return value !== when.value;
    case "exists":
      return value !== undefined && value !== null;
    case "notExists":
      return value === undefined || value === null;
  }
}

// Page values exist only while Chromium prints the header and footer, where it fills these elements in.
const PAGE_CLASSES: Record<string, string> = { number: "pageNumber", count: "totalPages" };

/** isPageReference tells a page-value reference (`["$page", …]`) from a data path. */
export function isPageReference(reference: ValueReference): boolean {
  return reference.path[0] === "$page";
}

/** pageClass answers the class Chromium fills for `["$page","number"]` or `["$page","count"]`, else undefined. */
export function pageClass(reference: ValueReference): string | undefined {
  const [root, name] = reference.path;
  const known = root === "$page" && reference.path.length === 2 && Object.hasOwn(PAGE_CLASSES, name);
  return known ? PAGE_CLASSES[name] : undefined;
}
