/**
 * strings: the pure string renderer — a template string with `{{path}}` placeholders + JSON data → text
 * (DESIGN.md 4 "Reports and strings"; the grammar is in docs/reports.md).
 *
 * A placeholder is `{{ path [| format] [?? fallback] }}`:
 * - path: `.`-separated segments of letters, digits, `_`, `-` and `$` (`customer.name`, `items.0.price`); a first
 *   segment `$root` reads from the whole data instead of the current item (they differ only inside a repeated row of
 *   a workbook); `{{.}}` is the current item itself.
 * - format: `number [digits] [locale]`, `percent [digits] [locale]`, `currency CODE [digits] [locale]`,
 *   `date [short|medium|long|full] [locale]` — the value-reference formats of spec 2.12, tokens in any order.
 * - fallback: the text after `??`, shown as it is when the value is missing, null, an object or an array.
 * Text outside placeholders is copied as it is, never escaped. `{{{{` is a literal `{{`, and a third brace before a
 * placeholder is a literal `{` (so `{{{x}}}` is `{` + x + `}`); a `}}` outside a placeholder needs no escape.
 */
import { ApiError } from "../errors";
import { DEFAULT_FORMAT, FormatterCache, formatProblem, type FormatDefaults } from "./compile/format";
import type { Scope, ValueFormat, ValueReference } from "./compile/model";
import { referenceText, type Scopes } from "./compile/values";

/** Placeholder is one parsed `{{…}}`: the value reference it stands for and where it starts in the template. */
export interface Placeholder {
  reference: ValueReference;
  /** UTF-16 offset of the opening `{{`. */
  offset: number;
}

/** TemplatePart is literal text or a placeholder, in template order. */
export type TemplatePart = string | Placeholder;

/** TemplateSyntaxError says why a template string does not parse; the message ends with "at offset N". */
export class TemplateSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
  ) {
    super(`${reason} at offset ${offset}`);
    this.name = "TemplateSyntaxError";
  }
}

/** StringOptions: the default locale and time zone of formats, and the most characters the text may have. */
export interface StringOptions {
  locale?: string;
  timeZone?: string;
  maxLength?: number;
}

/** MAX_TEMPLATE_LENGTH is the longest template string POST /v1/strings/render takes. */
export const MAX_TEMPLATE_LENGTH = 100_000;

// A 100000-character template of placeholders each pointing at a large data string could multiply the request body
// many times over; the answer is capped instead.
export const MAX_TEXT_LENGTH = 1_000_000;

// The same bounds as a value reference's path (spec 2.12), so a parsed placeholder is a valid ValueReference.
const MAX_SEGMENTS = 20;
const MAX_SEGMENT_LENGTH = 128;
const SEGMENT = /^[\p{L}\p{N}_$-]+$/u;
const ROOT = "$root";

const FORMAT_TYPES = ["number", "currency", "percent", "date"] as const;
const DATE_STYLES = ["short", "medium", "long", "full"] as const;
const DIGITS = /^(?:[0-9]|1[0-9]|20)$/;
const CURRENCY = /^[A-Z]{3}$/;
// A BCP 47 tag starts with a lowercase language, which keeps it apart from an uppercase currency code.
const LOCALE = /^[a-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

/** parsePath reads a dot path (`a.b.0`, `$root.a`, `.`) that starts at `offset` in the template. */
export function parsePath(text: string, offset: number): { path: string[]; scope: Scope } {
  const lead = text.length - text.trimStart().length;
  const trimmed = text.trim();
  const at = offset + lead;
  if (trimmed === "") throw new TemplateSyntaxError("expected a path", offset);
  if (trimmed === ".") return { path: [], scope: "current" };
  const segments = trimmed.split(".");
  let position = at;
  for (const segment of segments) {
    if (segment === "") throw new TemplateSyntaxError("empty path segment", position);
    const bad = [...segment].findIndex((c) => !SEGMENT.test(c));
    if (bad >= 0) {
      const index = [...segment].slice(0, bad).join("").length;
      throw new TemplateSyntaxError(`unexpected character ${JSON.stringify([...segment][bad])} in path`, position + index);
    }
    if (segment.length > MAX_SEGMENT_LENGTH) throw new TemplateSyntaxError(`path segment longer than ${MAX_SEGMENT_LENGTH} characters`, position);
    position += segment.length + 1;
  }
  const scope: Scope = segments[0] === ROOT ? "root" : "current";
  const path = scope === "root" ? segments.slice(1) : segments;
  if (path.length === 0) throw new TemplateSyntaxError("expected a path after $root", at);
  if (path.length > MAX_SEGMENTS) throw new TemplateSyntaxError(`path longer than ${MAX_SEGMENTS} segments`, at);
  return { path, scope };
}

interface Token {
  text: string;
  offset: number;
}

function tokens(text: string, offset: number): Token[] {
  return [...text.matchAll(/\S+/g)].map((m) => ({ text: m[0], offset: offset + m.index! }));
}

function parseFormat(text: string, offset: number): ValueFormat {
  const [type, ...rest] = tokens(text, offset);
  if (!type) throw new TemplateSyntaxError("expected a format after |", offset);
  if (!(FORMAT_TYPES as readonly string[]).includes(type.text))
    throw new TemplateSyntaxError(`unknown format ${JSON.stringify(type.text)}; use number, currency, percent or date`, type.offset);
  const format: ValueFormat = { type: type.text as ValueFormat["type"] };
  const once = (token: Token, field: string, given: unknown) => {
    if (given !== undefined) throw new TemplateSyntaxError(`${field} given twice`, token.offset);
  };
  for (const token of rest) {
    if (DIGITS.test(token.text) && format.type !== "date") {
      once(token, "fraction digits", format.maximumFractionDigits);
      format.minimumFractionDigits = format.maximumFractionDigits = Number(token.text);
    } else if (CURRENCY.test(token.text) && format.type === "currency") {
      once(token, "currency", format.currency);
      format.currency = token.text;
    } else if ((DATE_STYLES as readonly string[]).includes(token.text) && format.type === "date") {
      once(token, "date style", format.dateStyle);
      format.dateStyle = token.text as ValueFormat["dateStyle"];
    } else if (LOCALE.test(token.text) && token.text.length <= 64) {
      once(token, "locale", format.locale);
      format.locale = token.text;
    } else {
      throw new TemplateSyntaxError(`unexpected ${JSON.stringify(token.text)} in a ${format.type} format`, token.offset);
    }
  }
  if (format.type === "currency" && !format.currency) throw new TemplateSyntaxError("currency needs a code such as EUR", type.offset);
  // Intl is the judge of a locale: a well-formed tag it cannot use is refused here rather than at every value.
  const problem = formatProblem(format);
  if (problem) throw new TemplateSyntaxError(problem, type.offset);
  return format;
}

/** parsePlaceholder reads the inside of `{{…}}`; `offset` is where the opening `{{` is. */
export function parsePlaceholder(body: string, offset: number): Placeholder {
  const start = offset + 2;
  const fallbackAt = body.indexOf("??");
  const head = fallbackAt >= 0 ? body.slice(0, fallbackAt) : body;
  const pipe = head.indexOf("|");
  const pathText = pipe >= 0 ? head.slice(0, pipe) : head;
  if (pathText.trim() === "") throw new TemplateSyntaxError(body.trim() === "" ? "empty placeholder" : "expected a path", offset);
  const reference: ValueReference = parsePath(pathText, start) as ValueReference;
  if (pipe >= 0) {
    const formatText = head.slice(pipe + 1);
    const second = formatText.indexOf("|");
    if (second >= 0) throw new TemplateSyntaxError("only one | format is allowed", start + pipe + 1 + second);
    reference.format = parseFormat(formatText, start + pipe + 1);
  }
  if (fallbackAt >= 0) reference.fallback = body.slice(fallbackAt + 2).trim();
  return { reference, offset };
}

/** parseTemplate splits a template string into literal text and placeholders; it throws TemplateSyntaxError. */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = "";
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf("{", i);
    if (open < 0) break;
    text += template.slice(i, open);
    if (template.startsWith("{{{{", open)) {
      text += "{{";
      i = open + 4;
    } else if (template.startsWith("{{{", open)) {
      // A path never starts with a brace: the first of three is text, the other two open the placeholder.
      text += "{";
      i = open + 1;
    } else if (template.startsWith("{{", open)) {
      const close = template.indexOf("}}", open + 2);
      if (close < 0) throw new TemplateSyntaxError("unclosed placeholder", open);
      if (text) parts.push(text);
      text = "";
      parts.push(parsePlaceholder(template.slice(open + 2, close), open));
      i = close + 2;
    } else {
      text += "{";
      i = open + 1;
    }
  }
  text += template.slice(i);
  if (text) parts.push(text);
  return parts;
}

/** formatterCache builds the format cache of one rendering with the given defaults. */
export function formatterCache(options: Pick<StringOptions, "locale" | "timeZone"> = {}): FormatterCache {
  const defaults: FormatDefaults = { locale: options.locale ?? DEFAULT_FORMAT.locale, timeZone: options.timeZone ?? DEFAULT_FORMAT.timeZone };
  return new FormatterCache(defaults);
}

/** renderParts joins parsed parts with values from `scopes`; over `maxLength` characters it throws 413 LIMIT_EXCEEDED. */
export function renderParts(parts: TemplatePart[], scopes: Scopes, formats: FormatterCache, maxLength = MAX_TEXT_LENGTH): string {
  let out = "";
  for (const part of parts) {
    out += typeof part === "string" ? part : referenceText(part.reference, scopes, formats);
    if (out.length > maxLength)
      throw new ApiError("LIMIT_EXCEEDED", `The rendered text is longer than ${maxLength} characters.`, {
        details: [{ message: `at most ${maxLength} characters of text are answered` }],
      });
  }
  return out;
}

/** renderString parses `template` and fills it from `data` (root and current item alike); it throws TemplateSyntaxError. */
export function renderString(template: string, data: unknown, options: StringOptions = {}): string {
  return renderParts(parseTemplate(template), { root: data, current: data }, formatterCache(options), options.maxLength);
}

/** localeProblem says why a locale or time zone cannot be used as a default, or answers undefined. */
export function localeProblem(options: Pick<StringOptions, "locale" | "timeZone">): { field: "locale" | "timeZone"; message: string } | undefined {
  try {
    if (options.locale !== undefined) Intl.getCanonicalLocales(options.locale);
  } catch (error) {
    return { field: "locale", message: (error as Error).message };
  }
  try {
    if (options.timeZone !== undefined) new Intl.DateTimeFormat("en-US", { timeZone: options.timeZone });
  } catch (error) {
    return { field: "timeZone", message: (error as Error).message };
  }
  return undefined;
}
