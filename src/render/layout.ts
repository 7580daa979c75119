/**
 * layout: checks of a loaded document, in its page, before it is printed — content Chromium would lose without a
 * word is refused instead (docs/pool.md "Whole documents").
 *
 * Measured (Chromium 156, docs/pool.md): Chromium places the text of one inline formatting context (a paragraph) at
 * offsets in LayoutUnits, whose largest value is 2^25 px. Once a paragraph's text is wider than that laid end to end
 * (about 4.5 million characters of 16px text), its line breaker stops: the rest goes on one line millions of pixels
 * wide, clipped at the page's edge, and the page count stops growing (a 1.6-million-word paragraph printed 316 pages
 * and 909,758 of its words, and so passed RENDER_MAX_PAGES).
 */
import type { Page } from "playwright-core";
import { ApiError } from "../errors";

/** LAYOUT_UNIT_MAX_PX is the largest offset Chromium's layout can place anything at (LayoutUnit: int32 of 1/64 px). */
export const LAYOUT_UNIT_MAX_PX = 2 ** 25;

/** A paragraph whose text laid end to end passes this is refused: the measure is of rendered line boxes, so keep a margin. */
const PARAGRAPH_LIMIT_PX = Math.floor(LAYOUT_UNIT_MAX_PX * 0.95);

/** Paragraphs with fewer characters are not measured: at 10,000 characters a paragraph would need glyphs over 3,000 px
 * wide on average to reach the limit. */
const MEASURED_FROM_CHARS = 10_000;

/**
 * findLongParagraph runs in the page (JavaScript is off for the document, so nothing in it can change what this sees):
 * it sums the text of each inline formatting context, measures the line boxes of those with enough text, and answers
 * the characters of the first one over the limit, or null.
 */
function findLongParagraph([limitPx, fromChars]: [number, number]): number | null {
  // Most documents hold too little text to be measured at all: one native call answers for them.
  // The body's: the head's text is stylesheets and a title, which lay out no paragraph.
  const body = document.body;
  if (!body || (body.textContent?.length ?? 0) < fromChars) return null;
  const blockOf = new Map<Element, Element>();
  const texts = new Map<Element, Text[]>();
  const chars = new Map<Element, number>();
  const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    const parent = node.parentElement;
    if (!parent) continue;
    let block = blockOf.get(parent);
    if (!block) {
      block = parent;
      while (block !== body && block.parentElement && ["inline", "contents"].includes(getComputedStyle(block).display)) block = block.parentElement;
      blockOf.set(parent, block);
    }
    chars.set(block, (chars.get(block) ?? 0) + node.length);
    const list = texts.get(block);
    if (list) list.push(node);
    else texts.set(block, [node]);
  }
  const range = document.createRange();
  for (const [block, count] of chars) {
    if (count < fromChars) continue;
    let widthPx = 0;
    for (const text of texts.get(block)!) {
      range.selectNodeContents(text);
      const rects = range.getClientRects();
      for (let i = 0; i < rects.length; i++) widthPx += rects[i]!.width;
    }
    if (widthPx >= limitPx) return count;
  }
  return null;
}

/** checkLayout throws LIMIT_EXCEEDED when the loaded document has a paragraph too long for Chromium to break into lines. */
export async function checkLayout(page: Page, html: string): Promise<void> {
  // The text measured is the document's text nodes: HTML shorter than the threshold cannot hold that much.
  if (html.length < MEASURED_FROM_CHARS) return;
  const chars = await page.evaluate(findLongParagraph, [PARAGRAPH_LIMIT_PX, MEASURED_FROM_CHARS] as [number, number]);
  if (chars === null) return;
  throw new ApiError(
    "LIMIT_EXCEEDED",
    `A paragraph of ${chars} characters is too long to print whole: Chromium cannot break text into lines past ` +
      `${LAYOUT_UNIT_MAX_PX} px of one paragraph (about 4.5 million characters at 16px) and would cut the rest off. ` +
      "Split the text into several paragraphs (<p> elements).",
  );
}
