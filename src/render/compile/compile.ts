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
 *   documents of their own) at a 10px default font size. A render over `maxNodes` nodes fails with LIMIT_EXCEEDED.
 * - Documents (renderDocumentHtml, re-exported here): tags and attributes from allow-lists, text → span and
 *   container → div by default, `tw` classes join `className`, `preset` is the base that `style` overrides, and an
 *   image `src` is an asset id or a `data:image/…` URL.
 */
import type { ErrorDetail } from "../../errors";
import { checkTemplate } from "./check";
import { escapeStyleElement } from "./escape";
import { DEFAULT_FORMAT, FormatterCache } from "./format";
import { renderNode, type RenderContext } from "./html";
import type { CompositionNode, TemplateSource } from "./model";
import { pageCss } from "./page";
import { htmlDocument } from "./shell";

/** CompiledTemplate is a template that passed checkTemplate; only compileTemplate makes one. */
export interface CompiledTemplate {
  readonly source: TemplateSource;
  readonly pageCss: string;
}

/** RenderOptions carry what rendering needs from outside the template. */
export interface RenderOptions {
  /** The URL the render page requests an asset by; the page's request handler serves it from the store. */
  assetUrl: (assetId: string) => string;
  locale?: string;
  timeZone?: string;
  /** At most this many nodes and table cells per document (default DEFAULT_MAX_NODES). */
  maxNodes?: number;
}

export const DEFAULT_MAX_NODES = 1_000_000;

/** compileTemplate checks a template and answers the problems (TEMPLATE_INVALID details) or the compiled template. */
export function compileTemplate(template: TemplateSource): { problems: ErrorDetail[] } | { ok: CompiledTemplate } {
  const problems = checkTemplate(template);
  if (problems.length) return { problems };
  return { ok: { source: template, pageCss: pageCss(template.page) } };
}

function renderContext(compiled: CompiledTemplate, options: RenderOptions): RenderContext {
  const limit = options.maxNodes ?? DEFAULT_MAX_NODES;
  return {
    components: compiled.source.components ?? {},
    formats: new FormatterCache({
      locale: options.locale ?? DEFAULT_FORMAT.locale,
      timeZone: options.timeZone ?? DEFAULT_FORMAT.timeZone,
    }),
    assetUrl: options.assetUrl,
    budget: { nodes: limit, limit },
  };
}

function renderBody(compiled: CompiledTemplate, node: CompositionNode, data: unknown, options: RenderOptions): string {
  return renderNode(node, { root: data, current: data }, renderContext(compiled, options));
}

/** renderHtml renders the template's content with data into a full HTML document (page rule, stylesheet, body). */
export function renderHtml(compiled: CompiledTemplate, data: unknown, options: RenderOptions): string {
  const body = renderBody(compiled, compiled.source.content, data, options);
  return htmlDocument(body, [compiled.pageCss, compiled.source.stylesheet ?? ""]);
}

function marginalHtml(compiled: CompiledTemplate, node: CompositionNode, data: unknown, options: RenderOptions): string {
  const stylesheet = compiled.source.stylesheet ? `<style>${escapeStyleElement(compiled.source.stylesheet)}</style>` : "";
  // Chromium prints header and footer text very small unless told otherwise; the template's own styles still win.
  return `${stylesheet}<div style="width:100%;font-size:10px">${renderBody(compiled, node, data, options)}</div>`;
}

/** renderHeaderHtml renders the template's header for Chromium's `headerTemplate`, or undefined when there is none. */
export function renderHeaderHtml(compiled: CompiledTemplate, data: unknown, options: RenderOptions): string | undefined {
  return compiled.source.header && marginalHtml(compiled, compiled.source.header, data, options);
}

/** renderFooterHtml renders the template's footer for Chromium's `footerTemplate`, or undefined when there is none. */
export function renderFooterHtml(compiled: CompiledTemplate, data: unknown, options: RenderOptions): string | undefined {
  return compiled.source.footer && marginalHtml(compiled, compiled.source.footer, data, options);
}

export { renderDocumentHtml } from "./document";
