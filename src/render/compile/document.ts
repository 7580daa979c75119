/** document: a DocumentNode tree (a render's `document` input, spec 2.12) checked and rendered to HTML. */
import type { ErrorDetail } from "../../errors";
import { isIdentifier } from "../../lib/ids";
import { attributes, escapeHtml } from "./escape";
import type { DocumentNode, Style } from "./model";
import { pointer } from "./pointer";
import { htmlDocument } from "./shell";
import { cssDeclarations, styleProblem } from "./style";
import { tailwindCss, twClasses } from "./tailwind";

// Elements that only structure and style text: nothing here loads, embeds, submits or runs anything.
const TAGS = new Set([
  "div", "span", "p", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "header", "footer", "main",
  "ul", "ol", "li", "table", "thead", "tbody", "tr", "td", "th", "strong", "em", "b", "i", "u", "small",
  "br", "hr", "pre", "code", "blockquote", "figure", "figcaption",
]);
const VOID_TAGS = new Set(["br", "hr"]);

// Attributes that describe content; class, id, style, lang, dir and src have fields of their own, and anything
// else (on* handlers, href, srcdoc, formaction…) could run script or reach out.
const ATTRIBUTES = new Set([
  "title", "alt", "role", "colspan", "rowspan", "scope", "headers", "abbr", "start", "reversed", "type", "value",
  "span", "width", "height", "translate",
]);
const DATA_OR_ARIA = /^(data|aria)-[a-z0-9][a-z0-9._-]*$/;

// The caller maps an asset id to its URL; inline images may come as data URLs of image types only.
const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp|svg\+xml)[;,]/i;

/** DocumentOptions carry what rendering a document needs from outside it. */
export interface DocumentOptions {
  assetUrl: (assetId: string) => string;
}

class DocumentRenderer {
  readonly problems: ErrorDetail[] = [];
  /** The Tailwind classes met, each with the pointer of its first use. */
  readonly classes = new Map<string, string>();
  constructor(private readonly options: DocumentOptions) {}

  node(node: DocumentNode, at: string): string {
    if (node.type === "image") return this.image(node, at);
    const tag = this.tag(node, at);
    const attrs = this.attributes(node, at);
    if (VOID_TAGS.has(tag)) return `<${tag}${attrs}>`;
    const inner =
      node.type === "text"
        ? escapeHtml(node.text)
        : (node.children ?? []).map((child, i) => this.node(child, pointer(at, "children", i))).join("");
    return `<${tag}${attrs}>${inner}</${tag}>`;
  }

  image(node: Extract<DocumentNode, { type: "image" }>, at: string): string {
    if (node.tagName !== undefined && node.tagName !== "img") {
      this.problems.push({ path: pointer(at, "tagName"), message: "an image is an img" });
    }
    const attrs = this.attributes(node, at);
    const src = this.src(node.src, pointer(at, "src"));
    return `<img${attrs}${attributes({ src, width: node.width, height: node.height })} alt="">`;
  }

  tag(node: Exclude<DocumentNode, { type: "image" }>, at: string): string {
    const tag = node.tagName ?? (node.type === "text" ? "span" : "div");
    if (!TAGS.has(tag)) {
      this.problems.push({ path: pointer(at, "tagName"), message: `tag "${tag}" is not allowed` });
      return "div";
    }
    const hasContent = node.type === "text" ? node.text !== "" : (node.children?.length ?? 0) > 0;
    if (VOID_TAGS.has(tag) && hasContent) {
      this.problems.push({ path: pointer(at, "tagName"), message: `${tag} cannot have content` });
    }
    return tag;
  }

  attributes(node: DocumentNode, at: string): string {
    this.style(node.preset, pointer(at, "preset"));
    this.style(node.style, pointer(at, "style"));
    for (const name of twClasses(node.tw)) if (!this.classes.has(name)) this.classes.set(name, pointer(at, "tw"));
    let extra = "";
    for (const [name, value] of Object.entries(node.attributes ?? {})) {
      // Written here rather than through attributes(): an empty value is meaningful (reversed="").
      if (ATTRIBUTES.has(name) || DATA_OR_ARIA.test(name)) extra += ` ${name}="${escapeHtml(value)}"`;
      else this.problems.push({ path: pointer(at, "attributes", name), message: `attribute "${name}" is not allowed` });
    }
    const own = attributes({
      id: node.id,
      // tw holds Tailwind class names; their CSS is generated for the document (tailwind.ts).
      class: [node.className, node.tw].filter(Boolean).join(" "),
      lang: node.lang,
      dir: node.dir,
      // The preset is the base; the node's own style wins.
      style: cssDeclarations(node.preset, node.style),
    });
    return own + extra;
  }

  style(style: Style | undefined, at: string): void {
    for (const [key, value] of Object.entries(style ?? {})) {
      const problem = styleProblem(key, value);
      if (problem) this.problems.push({ path: pointer(at, key), message: problem });
    }
  }

  src(src: string, at: string): string | undefined {
    if (isIdentifier(src)) return this.options.assetUrl(src);
    if (DATA_IMAGE.test(src)) return src;
    this.problems.push({ path: at, message: "images must be assets (an asset id or a data:image URL)" });
    return undefined;
  }
}

/** RenderedDocument is a document's full HTML, and its Tailwind classes that made no CSS (with their pointers). */
export interface RenderedDocument {
  html: string;
  unknownClasses: { className: string; path: string }[];
}

/** renderDocumentHtml renders a DocumentNode tree as a full HTML document with the CSS of its Tailwind classes, or
 * answers its problems (pointers from the root). */
export async function renderDocumentHtml(node: DocumentNode, options: DocumentOptions): Promise<{ problems: ErrorDetail[] } | { ok: RenderedDocument }> {
  const renderer = new DocumentRenderer(options);
  const body = renderer.node(node, "");
  if (renderer.problems.length) return { problems: renderer.problems };
  const tailwind = await tailwindCss(renderer.classes.keys());
  const unknownClasses = tailwind.unknown.map((className) => ({ className, path: renderer.classes.get(className)! }));
  return { ok: { html: htmlDocument(body, [tailwind.css]), unknownClasses } };
}
