/** render/stub-pool: the pool bench/cluster.ts runs `renderd serve` with (RENDERD_BENCH_PRINT_MS, read by server.ts
 * only): every print waits a fixed time and answers one blank page, and no browser starts. The bench then measures
 * what surrounds the print — the API, the store, the queue, the worker — with several processes on a machine whose
 * cores Chromium would otherwise take. Never for serving documents: docs/scale-out.md "Measured" says so. */
import { PDFDocument } from "pdf-lib";
import { RenderPool, type RenderJob, type RenderOutput, type RenderPoolOptions } from "./pool";

let page: Promise<Uint8Array> | undefined;

/** StubPool prints nothing: each render() resolves after `printMs` with the same one-page PDF, or with the abort. */
export class StubPool extends RenderPool {
  constructor(
    options: RenderPoolOptions,
    private readonly printMs: number,
  ) {
    super(options);
  }

  override async start(): Promise<void> {}

  override async stop(): Promise<void> {}

  override async render(_job: RenderJob, signal?: AbortSignal): Promise<RenderOutput> {
    const pdf = await (page ??= PDFDocument.create().then((doc) => (doc.addPage(), doc.save())));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, this.printMs);
      signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
    });
    return { pdf, pages: 1, bytes: pdf.length, ms: this.printMs, warnings: [] };
  }
}
