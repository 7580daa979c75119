/** pdf/draw: PDF pages drawn with pdf.js (Mozilla's PDF reader): each page a canvas, with the page's text laid over it
 * (transparent, as in Firefox's PDF viewer) so that it can be read by a screen reader, found and copied. Loaded on
 * demand: it is most of the template pages' code. pdf.js runs on the page's own thread (its "fake worker"): a worker
 * script would be one more file to serve, and the console's PDFs are a page or two. Nothing it does needs eval or
 * another origin, so the console's Content-Security-Policy holds (isEvalSupported: false; renderd's PDFs embed their
 * fonts). */
import * as worker from "pdfjs-dist/build/pdf.worker.mjs";
import { getDocument, TextLayer } from "pdfjs-dist";

// pdf.js takes a worker module found here instead of starting a Worker (PDFWorker's main-thread path).
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;

/** DrawOptions: how many pages, and whether their text is laid over them. */
export interface DrawOptions {
  maxPages?: number;
  text?: boolean;
}

/** drawPages draws the pages of a PDF, each `width` CSS pixels wide and sharp on the screen's pixels, each in an element
 * of class `pdf-page` holding its canvas (and its text layer). */
export async function drawPages(pdf: Uint8Array, width: number, { maxPages = Number.POSITIVE_INFINITY, text = false }: DrawOptions = {}): Promise<HTMLElement[]> {
  // pdf.js takes the bytes over (transfers them); the caller keeps its own.
  const doc = await getDocument({ data: pdf.slice(), isEvalSupported: false, verbosity: 0 }).promise;
  try {
    const pages: HTMLElement[] = [];
    const ratio = window.devicePixelRatio || 1;
    for (let n = 1; n <= Math.min(doc.numPages, maxPages); n++) {
      const page = await doc.getPage(n);
      const scale = width / page.getViewport({ scale: 1 }).width;
      const viewport = page.getViewport({ scale });
      const element = document.createElement("div");
      element.className = "pdf-page";
      element.style.width = `${Math.round(viewport.width)}px`;
      element.style.height = `${Math.round(viewport.height)}px`;
      // The text layer sizes its runs by this factor, as pdf.js's own viewer sets it on a page.
      element.style.setProperty("--total-scale-factor", String(scale));
      const canvas = document.createElement("canvas");
      canvas.width = Math.round(viewport.width * ratio);
      canvas.height = Math.round(viewport.height * ratio);
      element.append(canvas);
      await page.render({ canvas, viewport: page.getViewport({ scale: scale * ratio }) }).promise;
      if (text) {
        const layer = document.createElement("div");
        layer.className = "textLayer";
        element.append(layer);
        await new TextLayer({ textContentSource: page.streamTextContent(), container: layer, viewport }).render();
      }
      pages.push(element);
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}
