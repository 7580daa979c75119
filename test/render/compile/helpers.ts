/** helpers: compile a template in a test and get at the rendered body. */
import { expect } from "bun:test";
import { compileTemplate, renderTemplate, type CompiledTemplate, type RenderOptions } from "../../../src/render/compile/compile";
import type { CompositionNode, TemplateSource } from "../../../src/render/compile/model";

export const options: RenderOptions = { assetUrl: (assetId) => `https://assets.renderd.invalid/${assetId}` };

/** compiled compiles a template that must compile. */
export function compiled(template: TemplateSource): CompiledTemplate {
  const result = compileTemplate(template);
  if ("problems" in result) expect(result.problems).toEqual([]);
  return (result as { ok: CompiledTemplate }).ok;
}

/** renderHtml renders a compiled template's page. */
export async function renderHtml(template: CompiledTemplate, data: unknown, renderOptions: RenderOptions): Promise<string> {
  return (await renderTemplate(template, data, renderOptions)).html;
}

/** renderHeaderHtml renders a compiled template's header (undefined when it has none). */
export async function renderHeaderHtml(template: CompiledTemplate, data: unknown, renderOptions: RenderOptions): Promise<string | undefined> {
  return (await renderTemplate(template, data, renderOptions)).header;
}

/** renderFooterHtml renders a compiled template's footer (undefined when it has none). */
export async function renderFooterHtml(template: CompiledTemplate, data: unknown, renderOptions: RenderOptions): Promise<string | undefined> {
  return (await renderTemplate(template, data, renderOptions)).footer;
}

/** body renders content with data and answers what is inside <body>. */
export async function body(content: CompositionNode, data: unknown, extra: Omit<TemplateSource, "content"> = {}): Promise<string> {
  const html = await renderHtml(compiled({ content, ...extra }), data, options);
  return html.slice(html.indexOf("<body>") + 6, html.lastIndexOf("</body>"));
}

/** count answers how often a needle occurs in a haystack. */
export function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}
