/**
 * compile: the pure compile stage of a render (DESIGN.md 4) — template + JSON data → HTML, no browser, no HTTP.
 *
 * Decisions spec 2.12 leaves open:
 * - Scope: a reference or visibleWhen without `scope` reads from `current`. Inside a repeat or table the current
 *   value is the item; inside a component it is the component's `data` (or the caller's current value when there is
 *   none); at the top level of content, header and footer it is the whole data, so the default is the root there.
 * - Page number and count: in the header and footer (and components used there), a text value reference with path
 *   `["$page","number"]` or `["$page","count"]` renders `<span class="pageNumber">` / `<span class="totalPages">`,
 *   which Chromium's `page.pdf({displayHeaderFooter, headerTemplate, footerTemplate})` fills in; `prefix` and
 *   `suffix` still apply. Anywhere else a `$page` path does not compile. `$page` is therefore no data property name.
 * - Missing values: a reference to a missing or null value, or to an object or array, shows `fallback` as it is
 *   (no prefix, suffix or format), or nothing. A value a format cannot read (not a number, not an ISO date or epoch
 *   milliseconds) is shown unformatted. Numbers may be numeric strings ("12.50"). Dates default to UTC, locale en-US.
 * - Styles: camelCase keys become kebab-case; numbers get `px` except 0, custom properties and unitless properties
 *   (lineHeight, opacity, zIndex, fontWeight, flex…). A value with `; { } < > \` or a resource-loading function
 *   (`url(`, `image-set(`, `expression(`…) does not compile; the renderer also drops it, and escapes the rest.
 * - Page size: lengths are CSS length strings in mm, cm, in or px ("210mm"), the units `@page` and Chromium's
 *   `page.pdf()` share; a custom size is turned to match `orientation`.
 * - Conditions: truthy/falsy are JavaScript truthiness except that an empty array is falsy; equals/notEquals compare
 *   strictly (5 is not "5") and do not compile without `value`; exists means neither missing nor null.
 * - Images: an assetId from data must still be an Identifier, or the image renders nothing.
 * - Output: text → div, container/repeat/component → div around their children, image → img with `alt=""`,
 *   table → table with a colgroup when any column has a width; column `style` applies after headerStyle/cellStyle.
 *   The header and footer are separate HTML fragments that carry the template stylesheet (Chromium prints them as
 *   documents of their own) at a 10px default font size. A render over `maxNodes` nodes (body, header and footer
 *   together) fails with LIMIT_EXCEEDED.
 * - Computed values (expressions.ts): a JSONata expression wherever a value reference is allowed, with `$` the current
 *   value and `$$` the root; parsed by the check, evaluated while rendering within one budget per render. A computed
 *   source that is not a list is one row.
 * - Tailwind classes (tailwind.ts): `tw` on any node joins `className`; their CSS comes after the stylesheet (in the
 *   header and footer too), and classes that made none are answered for the render's warnings.
 * - Documents (renderDocumentHtml, re-exported here): tags and attributes from allow-lists, text → span and
 *   container → div by default, `tw` classes join `className`, `preset` is the base that `style` overrides, and an
 *   image `src` is an asset id or a `data:image/…` URL.
 */
import type { ErrorDetail } from "../../errors";
import { checkTemplate, type ParsedExpression } from "./check";
import { escapeStyleElement } from "./escape";
import { Evaluation } from "./expressions";
import { DEFAULT_FORMAT, FormatterCache } from "./format";
import { renderNode, type RenderContext } from "./html";
import type { CompositionNode, TemplateSource, ValueExpression } from "./model";
import { pageCss } from "./page";
import { htmlDocument } from "./shell";
import { tailwindCss, type TailwindCss } from "./tailwind";

/** CompiledTemplate is a template that passed checkTemplate; only compileTemplate makes one. */
export interface CompiledTemplate {
  readonly source: TemplateSource;
  readonly pageCss: string;
  readonly expressions: ReadonlyMap<ValueExpression, ParsedExpression>;
  /** The Tailwind classes of its nodes, each with the pointer of its first use. */
  readonly classes: ReadonlyMap<string, string>;
}

/** RenderOptions carry what rendering needs from outside the template. */
export interface RenderOptions {
  /** The URL the render page requests an asset by; the page's request handler serves it from the store. */
  assetUrl: (assetId: string) => string;
  /** The URL of an image in the header or footer, which Chromium prints as documents that load nothing (default assetUrl). */
  marginalAssetUrl?: (assetId: string) => string;
  locale?: string;
  timeZone?: string;
  /** At most this many nodes and table cells per document, header and footer together (default DEFAULT_MAX_NODES). */
  maxNodes?: number;
}

/** RenderedTemplate is a template rendered with its data: the page, and the header and footer when it has them. */
export interface RenderedTemplate {
  html: string;
  header?: string;
  footer?: string;
  /** Tailwind classes that made no CSS, with the pointer of their first use. */
  unknownClasses: { className: string; path: string }[];
}

export const DEFAULT_MAX_NODES = 1_000_000;

/** compileTemplate checks a template and answers the problems (TEMPLATE_INVALID details) or the compiled template. */
export function compileTemplate(template: TemplateSource): { problems: ErrorDetail[] } | { ok: CompiledTemplate } {
  const { problems, expressions, classes } = checkTemplate(template);
  if (problems.length) return { problems };
  return { ok: { source: template, pageCss: pageCss(template.page), expressions, classes } };
}

// A published version compiles once (render/job.ts), so its classes are generated once too: keyed by its classes, which
// every render's copy of it shares (render/job.ts adds the asset stylesheets to a copy), not by the copy, new each time.
const tailwindOf = new WeakMap<CompiledTemplate["classes"], Promise<TailwindCss>>();

function templateTailwind(compiled: CompiledTemplate): Promise<TailwindCss> {
  let css = tailwindOf.get(compiled.classes);
  if (!css) {
    css = tailwindCss(compiled.classes.keys());
    tailwindOf.set(compiled.classes, css);
  }
  return css;
}

/** renderTemplate renders the template's content with data into a full HTML document (page rule, stylesheet, Tailwind
 * CSS, body), and its header and footer for Chromium's `headerTemplate` and `footerTemplate`; all three share one
 * node budget and one evaluation of the computed values. */
export async function renderTemplate(compiled: CompiledTemplate, data: unknown, options: RenderOptions): Promise<RenderedTemplate> {
  const limit = options.maxNodes ?? DEFAULT_MAX_NODES;
  const context: RenderContext = {
    components: compiled.source.components ?? {},
    formats: new FormatterCache({ locale: options.locale ?? DEFAULT_FORMAT.locale, timeZone: options.timeZone ?? DEFAULT_FORMAT.timeZone }),
    assetUrl: options.assetUrl,
    budget: { nodes: limit, limit },
    expressions: compiled.expressions,
    evaluation: new Evaluation(data),
  };
  const tailwind = await templateTailwind(compiled);
  const stylesheet = compiled.source.stylesheet ?? "";
  // Utilities come after the stylesheet, so a node's `tw` wins over its classes' rules (its `style` wins over both).
  const body = await renderNode(compiled.source.content, { root: data, current: data }, context);
  const html = htmlDocument(body, [compiled.pageCss, stylesheet, tailwind.css]);
  const marginal = async (node: CompositionNode | undefined) => {
    if (!node) return undefined;
    const inner = await renderNode(node, { root: data, current: data }, { ...context, assetUrl: options.marginalAssetUrl ?? options.assetUrl });
    const css = [stylesheet, tailwind.css].filter(Boolean).join("\n");
    // Chromium prints header and footer text very small unless told otherwise; the template's own styles still win.
    return `${css ? `<style>${escapeStyleElement(css)}</style>` : ""}<div style="width:100%;font-size:10px">${inner}</div>`;
  };
  const header = await marginal(compiled.source.header);
  const footer = await marginal(compiled.source.footer);
  const unknownClasses = tailwind.unknown.map((className) => ({ className, path: compiled.classes.get(className)! }));
  return { html, header, footer, unknownClasses };
}

export { renderDocumentHtml } from "./document";
