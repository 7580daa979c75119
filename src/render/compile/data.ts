/** data: checking render data against a template's DataSchema, and finding what a data path points at in it. */
import type { ErrorDetail } from "../../errors";
import type { DataSchema, DataType } from "./model";
import { pointer } from "./pointer";
import { isObject } from "../../lib/is-object";
import { isArrayIndex } from "./values";

// A bad payload of a million rows must not answer a million details: the first ones are enough to fix it.
export const MAX_DATA_PROBLEMS = 100;

function jsonType(value: unknown): DataType | undefined {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (isObject(value)) return "object";
  if (typeof value === "number") return Number.isFinite(value) ? "number" : undefined;
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "string") return "string";
  return undefined;
}

function article(type: DataType): string {
  return type === "null" ? "null" : type === "array" || type === "object" ? `an ${type}` : `a ${type}`;
}

/** Where the value being checked is: the segments below `at`, made into a JSON pointer only for a problem (making one
 * for every value was two thirds of checking a 1000-row report's data). */
class Place {
  readonly segments: (string | number)[] = [];
  constructor(private readonly at: string) {}
  pointer(...below: string[]): string {
    return pointer(this.at, ...this.segments, ...below);
  }
}

function check(schema: DataSchema, value: unknown, place: Place, problems: ErrorDetail[]): void {
  if (problems.length >= MAX_DATA_PROBLEMS) return;
  if (schema.type !== undefined) {
    const actual = jsonType(value);
    if (!actual || !(Array.isArray(schema.type) ? schema.type.includes(actual) : schema.type === actual)) {
      const allowed = Array.isArray(schema.type) ? schema.type : [schema.type];
      // The other keywords describe a value of the right type; checking them here would only repeat this problem.
      problems.push({ path: place.pointer(), message: `must be ${allowed.map(article).join(" or ") || "of no type"}` });
      return;
    }
  }
  if (schema.const !== undefined && value !== schema.const) {
    problems.push({ path: place.pointer(), message: `must be ${JSON.stringify(schema.const)}` });
  }
  if (schema.anyOf && !schema.anyOf.some((branch) => validateData(branch, value).length === 0)) {
    problems.push({ path: place.pointer(), message: "must match one of the schemas in anyOf" });
  }
  if (isObject(value)) {
    for (const name of schema.required ?? []) {
      if (!Object.hasOwn(value, name)) problems.push({ path: place.pointer(name), message: "is required" });
    }
    const properties = schema.properties ?? {};
    for (const name in properties) {
      if (!Object.hasOwn(properties, name) || !Object.hasOwn(value, name)) continue;
      place.segments.push(name);
      check(properties[name]!, value[name], place, problems);
      place.segments.pop();
    }
  }
  if (Array.isArray(value) && schema.items) {
    for (let i = 0; i < value.length && problems.length < MAX_DATA_PROBLEMS; i++) {
      place.segments.push(i);
      check(schema.items, value[i], place, problems);
      place.segments.pop();
    }
  }
}

/** validateData lists where `data` breaks `schema`, each with a JSON pointer below `at` (at most MAX_DATA_PROBLEMS). */
export function validateData(schema: DataSchema, data: unknown, at = ""): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  check(schema, data, new Place(at), problems);
  return problems.slice(0, MAX_DATA_PROBLEMS);
}

// A schema offers a step through `properties` (any key) or `items` (an index); anyOf offers each branch's steps.
function step(schema: DataSchema, segment: string): DataSchema[] {
  const found: DataSchema[] = [];
  if (schema.properties && Object.hasOwn(schema.properties, segment)) found.push(schema.properties[segment]);
  if (schema.items && isArrayIndex(segment)) found.push(schema.items);
  for (const branch of schema.anyOf ?? []) found.push(...step(branch, segment));
  return found;
}

/** schemasAt answers the schemas a data path can land on (several through anyOf); none when it points into no
 * schema property. Root scope starts from [dataSchema], current scope from the item or component data schemas. */
export function schemasAt(schemas: DataSchema[], path: string[]): DataSchema[] {
  let current = schemas;
  for (const segment of path) current = current.flatMap((schema) => step(schema, segment));
  return current;
}

/** itemSchemas answers the element schemas of the arrays the given schemas describe (for repeat and table rows). */
export function itemSchemas(schemas: DataSchema[]): DataSchema[] {
  return schemas.flatMap((schema) => [...(schema.items ? [schema.items] : []), ...itemSchemas(schema.anyOf ?? [])]);
}
