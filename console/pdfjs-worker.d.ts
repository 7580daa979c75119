// pdf.js ships no types for its worker module; the console only hands the module to pdf.js (features/templates/pdf/draw.ts).
declare module "pdfjs-dist/build/pdf.worker.mjs" {
  export const WorkerMessageHandler: unknown;
}
