/** store/sql-list: a condition on a list of values known only at run time, in the SQL both engines share
 * (docs/scale-out.md "Portable SQL"): one parameter per value, as PostgreSQL has no `json_each` over a text parameter. */
import type { Params } from "./store";

/** inList answers `column IN ($<name>0, $<name>1, …)` and its parameters; `1 = 0` for an empty list, which matches
 * nothing as an empty `IN ()` would (PostgreSQL refuses that text), so `NOT (…)` of it matches everything. `name`
 * keeps the parameters apart from the statement's others. */
export function inList(column: string, values: readonly string[], name: string): { sql: string; params: Params } {
  if (values.length === 0) return { sql: "1 = 0", params: {} };
  return {
    sql: `${column} IN (${values.map((_, i) => `$${name}${i}`).join(", ")})`,
    params: Object.fromEntries(values.map((value, i) => [`${name}${i}`, value])),
  };
}
