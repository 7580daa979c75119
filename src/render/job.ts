/**
 * job: what a render prints — the HTML, the header and footer, the PDF settings and the render's asset scope — made
 * once when the render is accepted (so every problem is answered then) and kept in its row until it ends.
 *
 * Decisions (docs/rendering.md):
 * - A template's `assetIds` come first in its stylesheet: a stylesheet asset is inlined, a font asset becomes an
 *   `@font-face` whose family is the file name without its extension; the template's own stylesheet follows and wins.
 * - Chromium prints the header and footer as documents of their own that load nothing, so their images are inlined
 *   as data URLs when the job is made.
 * - With a header or footer and no margin on that side, the side gets 20mm, or the header would have no room.
 * - Raw HTML may name workspace assets by `https://assets.renderd.invalid/<assetId>`; it has no asset scope, so the
 *   page it used is moved to a new Document afterwards (see RenderJob.assetScope).
 */
import { ApiError, type ErrorDetail } from "../errors";
import { compileTemplate, renderDocumentHtml, renderTemplate, type CompiledTemplate } from "./compile/compile";
import type { DocumentNode, TemplateSource } from "./compile/model";
import { assetUrl, newAssetScope } from "./assets";
import type { Finishing } from "./pdf-options";
import type { PdfPassword } from "../pdf/encrypt";
import type { SignatureSettings } from "../pdf/sign";
import type { ImageOutput } from "./image-output";
import type { PdfSettings } from "./print";
import type { RenderWarning } from "../queue/warnings";
import { classWarnings } from "./warnings";

/** PrintJob is the stored, printable form of a render. */
export interface PrintJob {
  html: string;
  pdf: PdfSettings;
  assetScope?: string;
  /** The render request's option: fail instead of warning when the page did not get something it asked for. */
  failOnBlockedResources?: boolean;
  /** What finish.ts does to the printed PDF; absent in jobs queued before it existed. */
  finish?: Finishing;
  /** Sign the printed PDF with this certificate (the request's, or its template's default). */
  signature?: SignatureSettings;
  /** Encrypt the printed PDF (`pdf.password`); kept here in clear only until the render ends, when the job is dropped. */
  encryption?: PdfPassword;
  /** Images of the PDF's pages to make too (`output`, issue 30), with the dpi settled. */
  output?: ImageOutput & { dpi: number };
  /** What planning found the document asked for and will not get (Tailwind classes that made no CSS). */
  warnings?: RenderWarning[];
}

/** AssetFile is a workspace's uploaded asset as a job needs it. */
export interface AssetFile {
  kind: string;
  filename: string;
  mediaType: string;
  bytes(): Uint8Array;
}

/** FindAsset answers the render's workspace's uploaded asset with this id, or null. */
export type FindAsset = (assetId: string) => AssetFile | null;

const MARGIN_FOR_MARGINALS = "20mm";
// Chromium prints its own date, title and URL where a template is missing; an empty element prints nothing.
const EMPTY_MARGINAL = "<span></span>";
const INLINE_KINDS = new Set(["image", "svg"]);

/** templateJob renders a template with its data into a PrintJob (the caller has checked its assets exist); it throws
 * LIMIT_EXCEEDED over `maxNodes`, and as a computed value fails (LIMIT_EXCEEDED, RENDER_FAILED). */
export async function templateJob(template: { source: TemplateSource; assetIds: string[] }, data: unknown, find: FindAsset, maxNodes?: number): Promise<PrintJob> {
  const scope = newAssetScope();
  const sheets: string[] = [];
  for (const id of template.assetIds) {
    const asset = find(id);
    if (asset?.kind === "stylesheet") sheets.push(new TextDecoder().decode(asset.bytes()));
    else if (asset?.kind === "font") sheets.push(`@font-face{font-family:"${fontFamily(asset.filename)}";src:url("${assetUrl(id, scope)}")}`);
  }
  const stylesheet = [...sheets, template.source.stylesheet ?? ""].filter(Boolean).join("\n");
  const checked = compiledOf(template.source);
  // The asset stylesheets are only text inside <style>: checkTemplate has nothing to say about them.
  const compiled: CompiledTemplate = { ...checked, source: { ...checked.source, stylesheet: stylesheet || undefined } };
  const rendered = await renderTemplate(compiled, data, { assetUrl: (id) => assetUrl(id, scope), marginalAssetUrl: (id) => dataUrl(find(id)), maxNodes });
  return withWarnings({ html: rendered.html, pdf: pdfSettings(template.source, rendered.header, rendered.footer), assetScope: scope }, classWarnings(rendered.unknownClasses));
}

/** documentJob renders a DocumentNode tree into a PrintJob; a bad node is BAD_REQUEST and an image naming no uploaded
 * image of the workspace is ASSET_INVALID, each with its pointer below `at`. */
export async function documentJob(document: DocumentNode, find: FindAsset, at: string): Promise<PrintJob> {
  const scope = newAssetScope();
  const named = new Set<string>();
  const rendered = await renderDocumentHtml(document, {
    assetUrl: (id) => {
      named.add(id);
      return assetUrl(id, scope);
    },
  });
  if ("problems" in rendered) throw new ApiError("BAD_REQUEST", "The document is not valid.", { details: under(at, rendered.problems) });
  const missing = [...named].filter((id) => !INLINE_KINDS.has(find(id)?.kind ?? ""));
  if (missing.length)
    throw new ApiError("ASSET_INVALID", "The document names images that are not uploaded images of this workspace.", {
      details: missing.map((id) => ({ path: at, message: `no uploaded image or SVG asset ${id}` })),
    });
  return withWarnings({ html: rendered.ok.html, pdf: { preferCSSPageSize: true }, assetScope: scope }, classWarnings(rendered.ok.unknownClasses, at));
}

// A job without warnings carries no field, as jobs did before there were any.
function withWarnings(job: PrintJob, warnings: RenderWarning[]): PrintJob {
  return warnings.length ? { ...job, warnings } : job;
}

/** htmlJob prints raw HTML as it is: its own `@page` rule decides the paper (A4 otherwise). */
export function htmlJob(html: string): PrintJob {
  return { html, pdf: { preferCSSPageSize: true } };
}

// A published version's source is one object for all its renders (templates/service.ts keeps it), so it is checked
// and compiled once; a draft is read afresh for each render and compiled each time.
const compiledSources = new WeakMap<TemplateSource, CompiledTemplate>();

function compiledOf(source: TemplateSource): CompiledTemplate {
  let compiled = compiledSources.get(source);
  if (!compiled) {
    const result = compileTemplate(source);
    // The template compiled when it was saved; only a change in the compiler could make it fail now.
    if ("problems" in result) throw new ApiError("TEMPLATE_INVALID", "The template does not compile.", { details: result.problems });
    compiled = result.ok;
    compiledSources.set(source, compiled);
  }
  return compiled;
}

function pdfSettings(source: TemplateSource, header: string | undefined, footer: string | undefined): PdfSettings {
  const settings: PdfSettings = { preferCSSPageSize: true };
  if (!header && !footer) return settings;
  const margin = source.page?.margin ?? {};
  return {
    ...settings,
    displayHeaderFooter: true,
    headerTemplate: header ?? EMPTY_MARGINAL,
    footerTemplate: footer ?? EMPTY_MARGINAL,
    margin: {
      ...margin,
      top: margin.top ?? (header ? MARGIN_FOR_MARGINALS : undefined),
      bottom: margin.bottom ?? (footer ? MARGIN_FOR_MARGINALS : undefined),
    },
  };
}

function dataUrl(asset: AssetFile | null): string {
  if (!asset || !INLINE_KINDS.has(asset.kind)) return "data:,";
  return `data:${asset.mediaType};base64,${Buffer.from(asset.bytes()).toString("base64")}`;
}

function fontFamily(filename: string): string {
  return filename.replace(/\.[^.]*$/, "").replace(/["\\\n\r\f<>]/g, "");
}

function under(at: string, problems: ErrorDetail[]): ErrorDetail[] {
  return problems.map((p) => ({ ...p, path: `${at}${p.path ?? ""}` }));
}
