/** pointer: JSON pointers (RFC 6901) for problem paths. */

/** pointer appends segments to a JSON pointer, escaping `~` and `/` inside each segment. */
export function pointer(base: string, ...segments: (string | number)[]): string {
  return base + segments.map((s) => "/" + String(s).replaceAll("~", "~0").replaceAll("/", "~1")).join("");
}
