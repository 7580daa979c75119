/** draft/schema: what the designer reads from the data schema — the paths a value can name (in the whole data, or in
 * the row of a table or repeat), the lists a table can show — and the two ways to fill one from the other: a schema
 * inferred from sample data, and sample data generated from a schema. */
import type { TemplateDraft } from "../../../../src/modules/templates/model";
import { nodeAt, type Draft } from "./nodes";

/** Schema is a template's data schema. */
export type Schema = NonNullable<TemplateDraft["dataSchema"]>;

type JsonType = "null" | "boolean" | "number" | "string" | "array" | "object";

function typesOf(schema: Schema): JsonType[] {
  return schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** DataPath is a path the schema describes, dotted as the designer shows it, and whether it is a list. */
export interface DataPath {
  path: string;
  list: boolean;
}

/** paths lists every property path of the schema, outside lists (a list's items are the rows of a table or repeat). */
export function paths(schema: Schema | undefined): DataPath[] {
  const out: DataPath[] = [];
  const walk = (s: Schema, at: string[]) => {
    for (const [name, child] of Object.entries(s.properties ?? {})) {
      const path = [...at, name];
      const list = typesOf(child).includes("array");
      out.push({ path: path.join("."), list });
      if (!list) walk(child, path);
    }
  };
  if (schema) walk(schema, []);
  return out;
}

/** schemaAt answers the schema of the value at a dotted path, or undefined where the schema says nothing. */
export function schemaAt(schema: Schema | undefined, path: string[]): Schema | undefined {
  let s = schema;
  for (const segment of path) s = s?.properties?.[segment] ?? (/^\d+$/.test(segment) ? s?.items : undefined);
  return s;
}

/** rowSchema answers the schema of one row of the table or repeat at `at` when its source is a path (the rows of an
 * expression are not described). */
export function rowSchema(draft: Draft, at: string): Schema | undefined {
  const node = nodeAt(draft, at);
  if (node?.type !== "table" && node?.type !== "repeat") return undefined;
  const source = node.source as { path?: string[]; scope?: string };
  if (!source.path) return undefined;
  return schemaAt(source.scope === "root" ? draft.dataSchema : scopeSchema(draft, at), source.path)?.items;
}

/** scopeSchema answers the schema of the current value at a node: the row of the nearest repeat above it (a node
 * among a repeat's children, not its `empty` ones), else the whole data. */
export function scopeSchema(draft: Draft, at: string): Schema | undefined {
  const m = /^(.*)\/(children|empty)\/\d+$/.exec(at);
  if (!m) return draft.dataSchema;
  const parent = nodeAt(draft, m[1]!);
  return parent?.type === "repeat" && m[2] === "children" ? rowSchema(draft, m[1]!) : scopeSchema(draft, m[1]!);
}

/** inferSchema writes a schema that the sample data matches: each property's type as found, a list's items from all
 * of its elements, nothing required (a sample may leave out what real data has). */
export function inferSchema(value: unknown): Schema {
  if (value === null) return { type: "null" };
  if (Array.isArray(value)) return value.length ? { type: "array", items: value.map(inferSchema).reduce(merge) } : { type: "array" };
  if (typeof value === "object") return { type: "object", properties: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inferSchema(v)])) };
  return { type: typeof value as "boolean" | "number" | "string" };
}

/** merge joins two inferred schemas: the types of both, and the properties and items of both. */
function merge(a: Schema, b: Schema): Schema {
  const types = [...new Set([...typesOf(a), ...typesOf(b)])];
  const out: Schema = { type: types.length === 1 ? types[0]! : types };
  if (a.properties || b.properties) {
    const names = new Set([...Object.keys(a.properties ?? {}), ...Object.keys(b.properties ?? {})]);
    out.properties = Object.fromEntries([...names].map((n) => [n, a.properties?.[n] && b.properties?.[n] ? merge(a.properties[n], b.properties[n]) : (a.properties?.[n] ?? b.properties![n]!)]));
  }
  if (a.items || b.items) out.items = a.items && b.items ? merge(a.items, b.items) : (a.items ?? b.items);
  return out;
}

const words = (name: string) => name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase();

/** generateSample makes data the schema accepts: every property (the required ones and the rest), two rows per list,
 * strings that say which field they fill, numbers that look like amounts. */
export function generateSample(schema: Schema | undefined, name = "value"): unknown {
  if (!schema) return {};
  if (schema.const !== undefined) return schema.const;
  if (schema.anyOf?.length) return generateSample(schema.anyOf[0], name);
  const type = typesOf(schema)[0] ?? (schema.properties ? "object" : schema.items ? "array" : "string");
  switch (type) {
    case "object":
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, generateSample(s, k)]));
    case "array":
      return [1, 2].map(() => generateSample(schema.items, name));
    case "number":
      return /rate|percent/i.test(name) ? 0.19 : /quantity|count|qty/i.test(name) ? 2 : 120.5;
    case "boolean":
      return true;
    case "null":
      return null;
    case "string":
      return /date/i.test(name) ? "2026-03-02" : `Example ${words(name)}`;
  }
}
