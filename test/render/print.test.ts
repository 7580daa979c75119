/** print: a job prints through printToPDF exactly as it did through playwright's page.pdf() with the same settings. */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { print, type PdfSettings } from "../../src/render/print";
import { launchBrowser, RENDER_CONTEXT } from "./fixtures";

setDefaultTimeout(30_000);

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await (await browser.newContext(RENDER_CONTEXT)).newPage();
});

afterAll(async () => {
  await browser.close();
});

const HTML = "<p>first</p><div style='height:3000px'>tall</div><p>last</p>";
const MAX_PAGES = 50;

/** viaPageDotPdf prints the way print() did before it called printToPDF itself: page.pdf() with the pool's defaults. */
async function viaPageDotPdf(pdf: PdfSettings): Promise<Buffer> {
  await page.setContent(HTML, { waitUntil: "load", timeout: 0 });
  const sized = pdf.format !== undefined || pdf.width !== undefined || pdf.height !== undefined;
  return page.pdf({
    ...pdf,
    format: pdf.format ?? (sized ? undefined : "A4"),
    printBackground: pdf.printBackground ?? true,
    tagged: pdf.tagged ?? false,
    outline: pdf.outline ?? false,
    pageRanges: `1-${MAX_PAGES + 1}`,
  });
}

// The file's dates are the moment of printing; everything else must be byte for byte the same.
const undated = (pdf: Buffer) => pdf.toString("latin1").replace(/\(D:[^)]*\)/g, "()");

describe("print", () => {
  test.each<[string, PdfSettings]>([
    ["the defaults (A4)", {}],
    ["Letter, landscape", { format: "Letter", landscape: true }],
    ["a lower-case format", { format: "a3" }],
    ["width in px as a number, height in inches", { width: 500, height: "10in" }],
    ["cm and mm, scaled", { width: "21cm", height: "297mm", scale: 0.8 }],
    ["margins in every unit, header and footer", { margin: { top: "2cm", bottom: 30, left: "1in", right: "5mm" }, displayHeaderFooter: true, headerTemplate: "<div style='font-size:10px'>H</div>", footerTemplate: "<span class=pageNumber></span>" }],
    ["CSS page size, no background, tagged with an outline", { preferCSSPageSize: true, printBackground: false, tagged: true, outline: true }],
  ])("%s: the same PDF as page.pdf()", async (_, pdf) => {
    const before = await viaPageDotPdf(pdf);
    const now = await print(page, { html: HTML, pdf }, MAX_PAGES);
    expect(undated(now)).toBe(undated(before));
  });

  test("an unknown paper format is refused as page.pdf() refuses it", async () => {
    await expect(print(page, { html: HTML, pdf: { format: "B5" } }, MAX_PAGES)).rejects.toThrow("Unknown paper format: B5");
  });
});
