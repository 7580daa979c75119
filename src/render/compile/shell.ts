/** shell: the HTML document around a rendered body. */
import { escapeStyleElement } from "./escape";

// Nothing in a render runs script or embeds other documents; the page also has JavaScript off and no network
// but assets (DESIGN.md 4). This is the fence inside the document, should either of those ever slip.
const CSP = "script-src 'none'; object-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'";

// The sheet's margins are @page's job; the body's default 8px would add to them.
const BASE_CSS = "html,body{margin:0;padding:0}";

/** htmlDocument wraps a rendered body in a full document: doctype, charset, CSP, then the given (trusted) CSS in order. */
export function htmlDocument(body: string, css: string[] = []): string {
  const styles = [BASE_CSS, ...css.filter((sheet) => sheet !== "")]
    .map((sheet) => `<style>${escapeStyleElement(sheet)}</style>`)
    .join("");
  return (
    `<!DOCTYPE html><html><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">` +
    `${styles}</head><body>${body}</body></html>`
  );
}
