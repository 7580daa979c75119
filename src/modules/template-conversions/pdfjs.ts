/** template-conversions/pdfjs: loads pdf.js (pdfjs-dist, legacy build) once, in a form that runs inside the compiled
 * binary (docs/decisions.md "pdfjs-dist"). */

type PdfJs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");

// Drawing classes pdf.js looks for at import time (from the optional @napi-rs/canvas package, whose native module the
// compiled binary cannot load) and warns about when missing. The converter never draws a page: empty stand-ins do.
const DRAWING_GLOBALS = ["DOMMatrix", "ImageData", "Path2D"] as const;

let loading: Promise<PdfJs> | null = null;

/** loadPdfJs answers the pdf.js module. Its worker runs in this thread: the module is handed to pdf.js as
 * `globalThis.pdfjsWorker` before pdf.mjs loads, because a worker file cannot be found inside the compiled binary. */
export function loadPdfJs(): Promise<PdfJs> {
  loading ??= (async () => {
    const global = globalThis as Record<string, unknown>;
    for (const name of DRAWING_GLOBALS) global[name] ??= class {};
    global.pdfjsWorker ??= await import("pdfjs-dist/legacy/build/pdf.worker.mjs");
    // pdf.js reports the missing canvas package with console.warn at import, before any verbosity can be set; that
    // line is not a renderd log line (pino's JSON), so it is held back while the module loads.
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (!(typeof args[0] === "string" && args[0].startsWith('Warning: Cannot load "@napi-rs/canvas"'))) warn(...args);
    };
    try {
      return await import("pdfjs-dist/legacy/build/pdf.mjs");
    } finally {
      console.warn = warn;
    }
  })();
  return loading;
}
