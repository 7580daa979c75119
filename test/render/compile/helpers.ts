/** helpers: compile a template in a test and get at the rendered body. */
import { expect } from "bun:test";
import { compileTemplate, renderHtml, type CompiledTemplate, type RenderOptions } from "../../../src/render/compile/compile";
import type { CompositionNode, TemplateSource } from "../../../src/render/compile/model";

export const options: RenderOptions = { assetUrl: (assetId) => `https://assets.renderd.invalid/${assetId}` };

/** compiled compiles a template that must compile. */
export function compiled(template: TemplateSource): CompiledTemplate {
  const result = compileTemplate(template);
  if ("problems" in result) expect(result.problems).toEqual([]);
  return (result as { ok: CompiledTemplate }).ok;
}

/** body renders content with data and answers what is inside <body>. */
export function body(content: CompositionNode, data: unknown, extra: Omit<TemplateSource, "content"> = {}): string {
  const html = renderHtml(compiled({ content, ...extra }), data, options);
  return html.slice(html.indexOf("<body>") + 6, html.lastIndexOf("</body>"));
}

/** count answers how often a needle occurs in a haystack. */
export function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}
