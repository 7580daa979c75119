/** cli/input: turning flag text into values, and checking them against the API's TypeBox schemas so no bound is written twice. */
import type { TObject, TSchema, Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ApiError, type ErrorDetail } from "../src/errors";

/** badInput is the one error of bad command-line input: `fail` prints it on one line and exits 2. */
export function badInput(message: string, details?: ErrorDetail[]): ApiError {
  return new ApiError("BAD_REQUEST", message, details ? { details } : {});
}

/**
 * wholeNumber reads digits only (`/^\d+$/`: no sign, decimals, exponents or spaces); `null` when `nullable`.
 * Anything else is kept as the text so the schema check reports it with the field's bounds.
 */
export function wholeNumber(raw: string, nullable = false): number | null | string {
  if (/^\d+$/.test(raw)) return Number(raw);
  if (nullable && raw === "null") return null;
  return raw;
}

/** trueOrFalse reads exactly `true` or `false`; anything else is kept as the text for the schema check to report. */
export function trueOrFalse(raw: string): boolean | string {
  return raw === "true" ? true : raw === "false" ? false : raw;
}

/** listOption collects a repeatable, comma-separated option (`--scope a,b --scope c`) into one list. */
export function listOption(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(",").map((s) => s.trim()).filter(Boolean)];
}

/** kebab turns a field name into its flag: `maxActiveRenders` → `--max-active-renders`. */
export function kebab(field: string): string {
  return "--" + field.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}

// describe says in words what a field's schema accepts, from its own bounds.
function describe(schema: TSchema): string | undefined {
  if (Array.isArray(schema.anyOf)) {
    const parts = (schema.anyOf as TSchema[]).map(describe);
    return parts.every(Boolean) ? parts.join(" or ") : undefined;
  }
  switch (schema.type) {
    case "null":
      return "null";
    case "boolean":
      return "true or false";
    case "integer": {
      const { minimum: min, maximum: max } = schema as { minimum?: number; maximum?: number };
      if (min !== undefined && max !== undefined) return `a whole number from ${min} to ${max}`;
      if (min !== undefined) return `a whole number of at least ${min}`;
      if (max !== undefined) return `a whole number of at most ${max}`;
      return "a whole number";
    }
    case "string": {
      const { minLength: min, maxLength: max } = schema as { minLength?: number; maxLength?: number };
      if (min !== undefined && max !== undefined) return `${min} to ${max} characters`;
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * checkInput validates `value` against an object schema and answers it typed, or throws one BAD_REQUEST naming each bad
 * field by its flag, what the schema accepts and what was given; `what` is a plural noun ("allowances", "key options").
 */
export function checkInput<T extends TObject>(schema: T, value: Record<string, unknown>, what: string, flagOf: (field: string) => string = kebab): Static<T> {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const error of Value.Errors(schema, value)) {
    const field = error.path.split("/")[1] ?? "";
    if (seen.has(field)) continue;
    seen.add(field);
    const fieldSchema = schema.properties[field] as TSchema | undefined;
    const accepts = fieldSchema ? describe(fieldSchema) : undefined;
    const given = value[field] === undefined ? "" : ` (got ${JSON.stringify(value[field])})`;
    const message = accepts ? `${flagOf(field)} must be ${accepts}${given}` : `${flagOf(field)}: ${error.message.toLowerCase()}${given}`;
    details.push({ path: `/${field}`, message });
  }
  if (details.length) throw badInput(`The ${what} are not valid.`, details);
  return value as Static<T>;
}
