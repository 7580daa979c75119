/** destinations/placeholders: `{{path}}` in an e-mail subject or a delivered file name, filled from the render's data and
 * metadata when the render is accepted (docs/destinations.md "Placeholders"). */

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*)\s*\}\}/g;

/** What placeholders read: `{{data.customer.name}}`, `{{metadata.orderId}}`, `{{renderId}}`. */
export interface PlaceholderValues {
  data: unknown;
  metadata: Record<string, unknown>;
  renderId: string;
}

/** fillPlaceholders replaces each `{{path}}` by the scalar found there; a missing path or an object or array gives "". */
export function fillPlaceholders(text: string, values: PlaceholderValues): string {
  return text.replace(PLACEHOLDER, (_, path: string) => {
    let value: unknown = values;
    for (const part of path.split(".")) value = value !== null && typeof value === "object" && Object.hasOwn(value, part) ? (value as Record<string, unknown>)[part] : undefined;
    return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : "";
  });
}

/** fillFilename fills a file name and makes it safe as one path segment on every destination: no separators or control characters. */
export function fillFilename(text: string, values: PlaceholderValues): string {
  const name = fillPlaceholders(text, values).replace(/[/\\\u0000-\u001f\u007f]/g, "-").trim();
  return name === "" || name === "." || name === ".." ? `${values.renderId}.pdf` : name.slice(0, 255);
}
