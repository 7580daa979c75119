/** is-object: the one test for a JSON-like object that the template compiler and the logger share. */

/** isObject tells an object (a JSON object, a record of fields) from null, arrays and scalars. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
