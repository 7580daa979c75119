/** template-conversions/pdfjs: loads pdf.js (pdfjs-dist, legacy build) once, in a form that runs inside the compiled
 * binary (docs/decisions.md "pdfjs-dist"). */

type PdfJs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");

let loading: Promise<PdfJs> | null = null;

/** loadPdfJs answers the pdf.js module. Its worker runs in this thread: the module is handed to pdf.js as
 * `globalThis.pdfjsWorker` before pdf.mjs loads, because a worker file cannot be found inside the compiled binary.
 * pdf.js asks for a DOMMatrix at import time only to render on a canvas, which the converter never does. */
export function loadPdfJs(): Promise<PdfJs> {
  loading ??= (async () => {
    const global = globalThis as { DOMMatrix?: unknown; pdfjsWorker?: unknown };
    global.DOMMatrix ??= class DOMMatrix {};
    global.pdfjsWorker ??= await import("pdfjs-dist/legacy/build/pdf.worker.mjs");
    return await import("pdfjs-dist/legacy/build/pdf.mjs");
  })();
  return loading;
}
