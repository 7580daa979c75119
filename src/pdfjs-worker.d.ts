// pdf.js ships no types for its worker module; the converter only hands the module to pdf.js (template-conversions/pdfjs.ts).
declare module "pdfjs-dist/legacy/build/pdf.worker.mjs" {
  export const WorkerMessageHandler: unknown;
}
