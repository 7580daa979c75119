import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ApiError } from "../../src/errors";
import { RenderPool } from "../../src/render/pool";
import { rejection } from "../wait";
import { pdfText } from "./fixtures";

setDefaultTimeout(60_000);

// The real Chromium, one page. Chromium stops breaking a paragraph into lines once its text, laid end to end, is
// 2^25 px wide (src/render/layout.ts): about 4.5 million characters at 16px, or 455,000 at 160px. The large font
// and a page 5 m wide keep the document small and under RENDER_MAX_PAGES, as the 8 MB paragraph of issue 16 was.
let pool: RenderPool;

beforeAll(async () => {
  pool = new RenderPool({ size: 1, chromiumPath: "/usr/bin/chromium", timeoutMs: 50_000 });
  await pool.start();
});

afterAll(async () => {
  await pool.stop();
});

const paragraph = (words: number) =>
  `<style>@page{size:5000mm 5000mm;margin:0}p{font-size:160px}</style><p>${"word ".repeat(words)}</p><p>THE END</p>`;
const wordsIn = (text: string) => text.split(" ").filter((w) => w === "word").length;

describe("whole documents or LIMIT_EXCEEDED", () => {
  test("a paragraph past Chromium's line-breaking limit fails LIMIT_EXCEEDED, saying what to do, instead of losing its tail", async () => {
    const error = await rejection(pool.render({ html: paragraph(120_000) }));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("LIMIT_EXCEEDED");
    expect(error.message).toContain("A paragraph of 600000 characters is too long to print whole");
    expect(error.message).toContain("Split the text into several paragraphs");
  });

  test("a refused document is never printed: it fails at its check, its page is kept, and the next document prints", async () => {
    // Printed, this paragraph takes Chromium 6–14 s, and its print compositor goes on with it even once the page is
    // closed; checked first, it is refused in well under a second. The deadline lies between the two.
    const before = pool.stats();
    const error = await rejection(pool.render({ html: paragraph(120_000), deadlineMs: 2_500 }));
    expect((error as ApiError).code).toBe("LIMIT_EXCEEDED");
    const out = await pool.render({ html: paragraph(60_000), deadlineMs: 10_000 });
    expect(wordsIn(pdfText(out.pdf))).toBe(60_000);
    expect(pool.stats().pagesOpened).toBe(before.pagesOpened);
  });

  test("a paragraph too long in pieces — inline elements, inside a block inside a table cell — fails all the same", async () => {
    const pieces = `<span>${"word ".repeat(20)}</span><b>${"word ".repeat(20)}</b>`.repeat(3_000);
    const html = `<style>@page{size:5000mm 5000mm;margin:0}td{font-size:160px}</style><table><tr><td><div>${pieces}</div></td></tr></table>`;
    const error = await rejection(pool.render({ html }));
    expect((error as ApiError).code).toBe("LIMIT_EXCEEDED");
    expect(error.message).toContain("A paragraph of 600000 characters");
  });

  test("the same paragraph within the limit prints every word", async () => {
    const out = await pool.render({ html: paragraph(60_000) });
    const text = pdfText(out.pdf);
    expect(wordsIn(text)).toBe(60_000);
    expect(text).toEndWith("THE END");
  });

  test("a document of many short paragraphs is not measured as one", async () => {
    const out = await pool.render({ html: `<p>${"word ".repeat(50)}</p>`.repeat(4_000) });
    expect(wordsIn(pdfText(out.pdf))).toBe(200_000);
  });
});
