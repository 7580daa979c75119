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
 * it answers the characters of the first paragraph (a block's inline formatting context: its text and that of its
 * inline descendants) whose line boxes laid end to end pass the limit, or null. It descends only into elements that
 * hold enough text at all, so a long document of short paragraphs (a 1000-row table) costs one style lookup per child
 * of a long element instead of one per text node's parent (45 → ~5 ms for bench/render.ts's 22-page report).
 */
function findLongParagraph([limitPx, fromChars]: [number, number]): number | null {
  // The body's: the head's text is stylesheets and a title, which lay out no paragraph.
  const body = document.body;
  if (!body || (body.textContent?.length ?? 0) < fromChars) return null;
  const range = document.createRange();
  const measure = (block: Element): number | null => {
    const texts: Text[] = [];
    const blocks: Element[] = [];
    let count = 0;
    const collect = (parent: Element) => {
      for (let child = parent.firstChild; child; child = child.nextSibling) {
        if (child instanceof Text) {
          texts.push(child);
          count += child.length;
        } else if (child instanceof Element) {
          const chars = child.textContent?.length ?? 0;
          if (chars === 0) continue;
          if (["inline", "contents"].includes(getComputedStyle(child).display)) collect(child);
          // A block-level descendant holds paragraphs of its own; with less text than this, none can be long.
          else if (chars >= fromChars) blocks.push(child);
        }
      }
    };
    collect(block);
    if (count >= fromChars) {
      let widthPx = 0;
      for (const text of texts) {
        range.selectNodeContents(text);
        const rects = range.getClientRects();
        for (let i = 0; i < rects.length; i++) widthPx += rects[i]!.width;
      }
      if (widthPx >= limitPx) return count;
    }
    for (const inner of blocks) {
      const found = measure(inner);
      if (found !== null) return found;
    }
    return null;
  };
  return measure(body);
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
