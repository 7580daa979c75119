/** fuzz-values: fast-check arbitraries drawn from the JSON Schemas of the OpenAPI document — values that follow the
 * schema (so requests get past validation to the services), and values that break it on purpose: wrong types, missing
 * and extra fields, odd strings, huge numbers. Nesting stays shallow (MAX_DEPTH): deep nesting is the body parser's
 * own test (bounded parsing), not this suite's. */
import fc from "fast-check";

type Schema = Record<string, any>;

// Past this depth arrays are empty and objects carry only their required fields; past twice it, null.
const MAX_DEPTH = 4;

/** ODD_STRINGS are strings that have broken servers before: encodings, separators, injections, sizes. */
export const ODD_STRINGS = [
  "",
  " ",
  "\u0000",
  "\uFFFF",
  "\uD800",
  "💥🧨",
  "é".normalize("NFD"),
  "../../etc/passwd",
  "..%2F..%2Fetc%2Fpasswd",
  "%00",
  "%",
  "<script>alert(1)</script>",
  "'; DROP TABLE renders; --",
  "{{constructor.constructor('return process')()}}",
  "__proto__",
  "constructor",
  "-1",
  "0",
  "1e309",
  "NaN",
  "null",
  "true",
  "[]",
  "{}",
  "a".repeat(10_000),
  "x\r\nSet-Cookie: a=b",
  "file:///etc/passwd",
  "http://169.254.169.254/latest/meta-data/",
];

/** HUGE_NUMBERS are numbers at and past the edges JSON and SQLite care about. */
export const HUGE_NUMBERS = [-1, 0, -0, 0.5, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 2 ** 64, -(2 ** 63), 1e308, -1e308, 5e-324, 9007199254740991];

const odd = fc.constantFrom(...ODD_STRINGS);
const huge = fc.constantFrom(...HUGE_NUMBERS);
const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Values walks a document's schemas, resolving `$ref` within its components. */
export class Values {
  constructor(private readonly components: Record<string, Schema>) {}

  private resolve(schema: Schema): Schema {
    if (typeof schema?.$ref !== "string") return schema;
    return this.components[schema.$ref.replace("#/components/schemas/", "")] ?? {};
  }

  /** valid answers values that mostly follow `schema`. */
  valid(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    if (depth > 2 * MAX_DEPTH) return fc.constant(null);
    if ("const" in s) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
    if (Array.isArray(s.anyOf)) return fc.oneof(...s.anyOf.map((branch: Schema) => this.valid(branch, depth + 1)));
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    switch (type) {
      case "object":
        return this.object(s, depth);
      case "array":
        return fc.array(this.valid(s.items ?? {}, depth + 1), {
          minLength: Math.min(s.minItems ?? 0, 1),
          maxLength: depth > MAX_DEPTH ? Math.min(s.minItems ?? 0, 1) : Math.min(s.maxItems ?? 3, 3),
        });
      case "string":
        return this.string(s);
      case "integer":
        return fc.integer({ min: s.minimum ?? -1000, max: Math.min(s.maximum ?? 1000, s.minimum !== undefined ? s.minimum + 1000 : 1000) });
      case "number":
        return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
      case "boolean":
        return fc.boolean();
      case "null":
        return fc.constant(null);
      default:
        return anyJson;
    }
  }

  private string(s: Schema): fc.Arbitrary<string> {
    const maxLength = Math.min(s.maxLength ?? 40, 40);
    const minLength = Math.min(s.minLength ?? 0, maxLength);
    if (typeof s.pattern === "string") {
      try {
        return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity));
      } catch {
        // fast-check cannot draw from every pattern (lookaheads): such a field gets plain strings, mostly refused.
      }
    }
    return fc.string({ minLength, maxLength });
  }

  private object(s: Schema, depth: number): fc.Arbitrary<unknown> {
    const properties: Record<string, Schema> = s.properties ?? {};
    if (Object.keys(properties).length === 0) {
      const values = s.patternProperties ? Object.values<Schema>(s.patternProperties)[0]! : s.additionalProperties;
      if (values && typeof values === "object") return fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), odd), this.valid(values, depth + 1), { maxKeys: 3 });
      return fc.constant({});
    }
    const required: string[] = (s.required ?? []).filter((key: string) => key in properties);
    const kept = Object.entries(properties).filter(([key]) => depth <= MAX_DEPTH || required.includes(key));
    return fc.record(Object.fromEntries(kept.map(([key, value]) => [key, this.valid(value, depth + 1)])), { requiredKeys: required });
  }

  /** refused answers values every closed object schema refuses before any handler runs: a wrong root type, or a
   * fitting value with one field too many. */
  refused(schema: Schema): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    const options: Array<fc.Arbitrary<unknown>> = [fc.constantFrom<unknown>("text", 42, true, [1, "a"]).filter((v) => !matchesType(v, type))];
    if (type === "object" && s.additionalProperties === false)
      options.push(fc.tuple(this.valid(s) as fc.Arbitrary<Record<string, unknown>>, odd).map(([value, junk]) => ({ ...value, ["unexpected_" + junk.length]: junk })));
    return fc.oneof(...options);
  }

  /** broken answers values that break `schema` at its root or one field down: missing, mistyped or extra fields. */
  broken(schema: Schema): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    if (type !== "object" || !s.properties) return fc.oneof(this.refused(s), odd, huge);
    const properties = Object.keys(s.properties);
    const valid = this.valid(s) as fc.Arbitrary<Record<string, unknown>>;
    const options: Array<fc.Arbitrary<unknown>> = [this.refused(s), fc.constant(null)];
    if ((s.required ?? []).length > 0)
      options.push(fc.tuple(valid, fc.constantFrom(...(s.required as string[]))).map(([value, key]) => Object.fromEntries(Object.entries(value).filter(([k]) => k !== key))));
    options.push(
      fc.tuple(valid, fc.constantFrom(...properties), fc.oneof(odd, huge, anyJson)).map(([value, key, junk]) => ({ ...value, [key]: junk })),
    );
    return fc.oneof(...options);
  }
}

function matchesType(value: unknown, type: string | undefined): boolean {
  if (type === undefined) return true;
  if (type === "array") return Array.isArray(value);
  if (type === "object") return value !== null && typeof value === "object" && !Array.isArray(value);
  if (type === "null") return value === null;
  if (type === "integer") return Number.isInteger(value);
  return typeof value === type;
}

/** queryValue answers strings for one query parameter: mostly within its schema, sometimes odd or out of range. */
export function queryValue(values: Values, schema: Schema): fc.Arbitrary<string> {
  const fitting = values.valid(schema).map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
  return fc.oneof({ arbitrary: fitting, weight: 6 }, { arbitrary: odd, weight: 1 }, { arbitrary: huge.map(String), weight: 1 });
}
