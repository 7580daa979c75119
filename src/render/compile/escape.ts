/** escape: the only way text and attribute values reach generated HTML. */

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const SPECIAL = /[&<>"']/;

/** escapeHtml makes a string safe as element text and inside a quoted attribute value. */
export function escapeHtml(value: string): string {
  // Most values have nothing to escape: a test answers them without the replace's callback machinery.
  return SPECIAL.test(value) ? value.replace(/[&<>"']/g, (c) => ENTITIES[c]!) : value;
}

/** attributes renders ` name="value"` pairs, leaving out undefined and empty values; names are trusted, values escaped. */
export function attributes(pairs: Record<string, string | number | undefined>): string {
  let out = "";
  for (const [name, value] of Object.entries(pairs)) {
    if (value === undefined || value === "") continue;
    out += ` ${name}="${escapeHtml(String(value))}"`;
  }
  return out;
}

/** escapeStyleElement keeps trusted CSS from closing its `<style>` element early. */
export function escapeStyleElement(css: string): string {
  // `<\/style` is still valid CSS (an escaped solidus) but no longer ends the element.
  return css.replace(/<\/(style)/gi, "<\\/$1");
}
