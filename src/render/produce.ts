/** produce: what the worker makes of a claimed job before storing it — a print job printed, finished and sealed (with
 * its page images when the render asks for images: `output`), or a PDF operation run on its inputs and sealed
 * (issue 30). Either way the PDFs to store, their pages and the result's facts. */
import { ApiError } from "../errors";
import { sha256Hex } from "../lib/hash";
import { OperationError } from "../pdf/operations/open";
import { finishPdf, type FinishDeps } from "./finish";
import type { PrintJob } from "./job";
import { failedAt, runOperation, type OperationDeps, type OperationJob } from "./operation";
import { drawPageImage, type PageImageDeps } from "./page-images";
import type { RenderOutput } from "./pool";
import type { RenderWarning } from "../queue/warnings";
import type { RenderSpans } from "../tracing/tracing";
import { allWarnings } from "./warnings";

/** SealPdf answers the PDF to store for a job of `workspaceId`, once it is finished: encrypted, then signed (issue 13). */
export type SealPdf = (workspaceId: string, job: Pick<PrintJob, "encryption" | "signature">, pdf: Uint8Array) => Promise<Uint8Array>;

export interface ProduceDeps {
  /** Times a step as a span of the render's trace (tracing/tracing.ts). */
  phase: RenderSpans["phase"];
  print(workspaceId: string, job: PrintJob, signal: AbortSignal): Promise<RenderOutput>;
  finishing(workspaceId: string): FinishDeps;
  sealPdf?: SealPdf;
  operation: OperationDeps;
  images: PageImageDeps;
}

/** Made is what a job produced: its PDFs in order (one, but for a split), their pages, warnings and the result's facts. */
export interface Made {
  pdfs: Uint8Array[];
  pages: number[];
  warnings: RenderWarning[];
  /** RenderRow.details to write with the end (JSON), or null to keep what was written when it was queued. */
  details: string | null;
  ms: number;
}

/** printJob prints, finishes and seals a render's PDF, and draws the page images its `output` asks for. */
export async function printJob(deps: ProduceDeps, workspaceId: string, job: PrintJob, signal: AbortSignal): Promise<Made> {
  const printed = await deps.phase("render.print", () => deps.print(workspaceId, job, signal));
  const { out, pdf } = await deps.phase("render.finish", async () => {
    const out = { ...printed, ...(await finishPdf(printed, job.finish, deps.finishing(workspaceId))) };
    const pdf = deps.sealPdf ? await deps.sealPdf(workspaceId, job, out.pdf) : out.pdf;
    if (job.output) await drawOutputImages(deps.images, pdf, out.pages, job);
    return { out, pdf };
  });
  return { pdfs: [pdf], pages: [out.pages], warnings: allWarnings(job.warnings, out.warnings), details: null, ms: out.ms };
}

/** drawOutputImages draws and keeps the images a render's `output` asks for, before the render is ended, so that the
 * images are there when its success is announced. A page the PDF does not have fails the render at its pointer. */
async function drawOutputImages(deps: PageImageDeps, pdf: Uint8Array, pages: number, job: PrintJob): Promise<void> {
  const output = job.output!;
  const wanted = output.pages ?? Array.from({ length: pages }, (_, i) => i + 1);
  wanted.forEach((page, i) => {
    if (page > pages) throw new ApiError("BAD_REQUEST", `/output/pages/${i}: page ${page} is past the PDF's last page, ${pages}.`, { details: [{ path: `/output/pages/${i}`, message: `the PDF has ${pages} pages` }] });
  });
  const sha256 = sha256Hex(pdf);
  for (const page of wanted) await drawPageImage(deps, pdf, sha256, page, { format: output.format, size: { dpi: output.dpi }, password: job.encryption?.user });
}

/** operate runs a PDF operation and seals each of its PDFs (encrypt, sign); a problem with its input or options fails it
 * at the pointer of what to fix. */
export async function operate(deps: ProduceDeps, workspaceId: string, job: OperationJob): Promise<Made> {
  const started = performance.now();
  let result;
  try {
    result = await deps.phase("render.finish", () => runOperation(job, deps.operation));
  } catch (e) {
    throw e instanceof OperationError ? failedAt(e) : e;
  }
  const pdfs: Uint8Array[] = [];
  for (const { pdf } of result.outputs) pdfs.push(deps.sealPdf ? await deps.sealPdf(workspaceId, job, pdf) : pdf);
  const details = { operation: job.operation, ...(job.operation === "compress" && { bytesBefore: result.bytesBefore }) };
  return { pdfs, pages: result.outputs.map((o) => o.pages), warnings: [], details: JSON.stringify(details), ms: performance.now() - started };
}
