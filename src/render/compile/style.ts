/** style: inline style objects to CSS declarations, and the rules a style value must follow. */
import type { Style } from "./model";

// Properties whose numbers have no unit (React's list, trimmed to what prints): every other number is px.
const UNITLESS = new Set([
  "animation-iteration-count",
  "aspect-ratio",
  "border-image-outset",
  "border-image-slice",
  "border-image-width",
  "column-count",
  "columns",
  "fill-opacity",
  "flex",
  "flex-grow",
  "flex-shrink",
  "flood-opacity",
  "font-weight",
  "grid-area",
  "grid-column",
  "grid-column-end",
  "grid-column-start",
  "grid-row",
  "grid-row-end",
  "grid-row-start",
  "line-clamp",
  "line-height",
  "opacity",
  "order",
  "orphans",
  "scale",
  "stop-opacity",
  "stroke-dasharray",
  "stroke-dashoffset",
  "stroke-miterlimit",
  "stroke-opacity",
  "stroke-width",
  "tab-size",
  "widows",
  "z-index",
  "zoom",
]);

const PROPERTY_NAME = /^(--[A-Za-z0-9_-]+|-?[a-z][a-z0-9-]*)$/;

// Style values are template content, not data, but they still must not load anything (the page has no network
// beyond assets, this is the second fence), run anything (old IE `expression()`), or escape their declaration.
const FORBIDDEN_CHARACTERS = /[;{}<>\\\u0000-\u001f\u007f]/;
const FORBIDDEN_FUNCTIONS = /(url|image|image-set|cross-fade|element|expression|paint|src)\s*\(/i;

/** cssPropertyName turns `backgroundColor` into `background-color`; kebab-case and custom properties pass as they are. */
export function cssPropertyName(key: string): string {
  if (key.startsWith("--")) return key;
  // `msTransform` is the one vendor prefix written in lower case in camelCase style objects.
  const withPrefix = /^ms[A-Z]/.test(key) ? "-" + key : key;
  return withPrefix.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}

/** styleProblem says why one style entry is refused, or answers undefined when it is fine. */
export function styleProblem(key: string, value: string | number): string | undefined {
  if (!PROPERTY_NAME.test(cssPropertyName(key))) return `"${key}" is not a CSS property name`;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : "must be a finite number";
  if (FORBIDDEN_CHARACTERS.test(value)) return "must not contain ; { } < > \\ or control characters";
  if (loadsResources(value)) {
    return "must not load resources or run expressions (url(), image-set(), expression()…)";
  }
  return undefined;
}

/** loadsResources tells CSS text that calls a function which loads a resource or runs an expression (url(), image-set()…). */
export function loadsResources(css: string): boolean {
  return FORBIDDEN_FUNCTIONS.test(css);
}

/** cssValue writes a style value: numbers get px unless the property is unitless or the number is 0. */
export function cssValue(property: string, value: string | number): string {
  if (typeof value === "string") return value.trim();
  if (value === 0 || UNITLESS.has(property) || property.startsWith("--")) return String(value);
  return `${value}px`;
}

/** cssDeclarations merges style objects left to right (later wins) into `a:b;c:d`, dropping refused entries. */
export function cssDeclarations(...styles: (Style | undefined)[]): string {
  const merged = new Map<string, string>();
  for (const style of styles) {
    for (const [key, value] of Object.entries(style ?? {})) {
      if (styleProblem(key, value)) continue;
      const property = cssPropertyName(key);
      merged.set(property, cssValue(property, value));
    }
  }
  return [...merged].map(([property, value]) => `${property}:${value}`).join(";");
}
