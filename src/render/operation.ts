/**
 * operation: what the worker does with a queued PDF operation (issue 30; docs/pdf.md "Operations on PDFs") instead of
 * printing — its inputs read from the file store and opened, the operation run by the engine of src/pdf/operations/,
 * the limits of a render checked on its inputs and outputs. Encryption and the signature are the worker's sealing step,
 * as for a render. checkOperation runs the same checks without producing anything, when the operation is accepted.
 */
import { PDFDocument } from "pdf-lib";
import { ApiError } from "../errors";
import type { PdfPassword } from "../pdf/encrypt";
import { compressPdf } from "../pdf/operations/compress";
import { fillForm, flattenPdf } from "../pdf/operations/forms";
import { openInput, OperationError, pageIndexes, rangeIndexes, type OpenedPdf } from "../pdf/operations/open";
import { mergePdfs, rotatePages, splitPdf } from "../pdf/operations/pages";
import { checkStampText, stampPdf } from "../pdf/operations/stamp";
import type { SignatureSettings } from "../pdf/sign";
import type { FileArea } from "../store/files";
import { setMetadata } from "./metadata";
import type { OperationOptions, PdfOperationName } from "./operation-options";

/** JobInput is an input as the queued job names it: stored bytes, its bookmark title, the password that opens it. */
export interface JobInput {
  area: FileArea;
  sha256: string;
  title: string;
  password?: string;
}

/** OperationJob is the stored form of an operation (the `job` of its row, like a render's PrintJob). */
export interface OperationJob {
  operation: PdfOperationName;
  inputs: JobInput[];
  options: Omit<OperationOptions, "password" | "signature" | "assetId">;
  /** The image a stamp or watermark draws: an uploaded image asset's bytes. */
  image?: { sha256: string; mediaType: string };
  /** encrypt, sign: the worker's sealing step does them, as for a render (kept in clear until the operation ends). */
  encryption?: PdfPassword;
  signature?: SignatureSettings;
}

/** isOperationJob tells a stored operation from a print job. */
export function isOperationJob(job: object): job is OperationJob {
  return "operation" in job;
}

/** OperationDeps is what running an operation needs: stored bytes and the per-render limits. */
export interface OperationDeps {
  read(area: FileArea, sha256: string): Promise<Uint8Array | null>;
  maxPages: number;
  maxOutputBytes: number;
}

/** OperationResult is the operation's PDFs (one; a split's one per range) and the input's size, for compress. */
export interface OperationResult {
  outputs: { pdf: Uint8Array; pages: number }[];
  bytesBefore: number;
}

/** failedAt turns an OperationError into the failed operation's error, naming the field to fix. */
export function failedAt(e: OperationError): ApiError {
  return new ApiError("BAD_REQUEST", `${e.path}: ${e.message}`, { details: [{ path: e.path, message: e.message }] });
}

/** openInputs reads and opens every input, checking their pages together against RENDER_MAX_PAGES. */
export async function openInputs(job: Pick<OperationJob, "inputs">, deps: OperationDeps): Promise<{ opened: OpenedPdf[]; bytes: number }> {
  const opened: OpenedPdf[] = [];
  let bytes = 0;
  let pages = 0;
  for (const [i, input] of job.inputs.entries()) {
    const stored = await deps.read(input.area, input.sha256);
    if (!stored) throw new OperationError(`/inputs/${i}`, "was deleted before the operation ran");
    bytes += stored.byteLength;
    const pdf = await openInput(stored, `/inputs/${i}`, input.password);
    pages += pdf.doc.getPageCount();
    if (pages > deps.maxPages) throw new ApiError("LIMIT_EXCEEDED", `The inputs have more than ${deps.maxPages} pages (RENDER_MAX_PAGES).`, { details: [{ path: "/inputs", message: `more than ${deps.maxPages} pages` }] });
    opened.push(pdf);
  }
  return { opened, bytes };
}

/** checkOperation finds, before the operation is queued, what running it would refuse: pages and ranges past the end,
 * unknown form fields or values of the wrong kind, a stamp text Helvetica cannot draw. */
export async function checkOperation(job: OperationJob, opened: OpenedPdf[]): Promise<void> {
  const first = opened[0]!;
  const count = first.doc.getPageCount();
  const { options } = job;
  if (job.operation === "split") rangeIndexes(options.ranges!, count);
  if (job.operation === "rotate" || job.operation === "stamp" || job.operation === "watermark") pageIndexes(options.pages, count);
  if ((job.operation === "stamp" || job.operation === "watermark") && options.text !== undefined) await checkStampText(first.doc, options.text);
  // Filling a copy in memory checks every name and value as the worker will; it is thrown away.
  if (job.operation === "fill") fillForm({ doc: await PDFDocument.load(first.bytes, { updateMetadata: false }), bytes: first.bytes }, options.fields!);
}

/** runOperation runs the job on its inputs and answers its PDFs; an OperationError names the field to fix, and an output
 * over RENDER_MAX_PAGES or RENDER_MAX_OUTPUT_BYTES is LIMIT_EXCEEDED. */
export async function runOperation(job: OperationJob, deps: OperationDeps): Promise<OperationResult> {
  const { opened, bytes } = await openInputs(job, deps);
  const outputs: Uint8Array[] = [];
  const input = opened[0]!;
  const { options } = job;
  const save = (doc: PDFDocument) => doc.save();
  switch (job.operation) {
    case "merge":
      outputs.push(await save(await mergePdfs(opened.map((pdf, i) => ({ pdf, title: job.inputs[i]!.title })), options.bookmarks ?? true)));
      break;
    case "split":
      for (const part of await splitPdf(input, options.ranges!)) outputs.push(await save(part));
      break;
    case "rotate":
      outputs.push(await save(rotatePages(input, options.angle!, options.pages)));
      break;
    case "stamp":
    case "watermark": {
      const image = job.image ? await deps.read("assets", job.image.sha256) : undefined;
      if (job.image && !image) throw new OperationError("/assetId", "the image asset was deleted before the operation ran");
      outputs.push(await save(await stampPdf(input, job.operation, options, image ? { bytes: image, mediaType: job.image!.mediaType } : undefined)));
      break;
    }
    case "fill":
      outputs.push(await save(fillForm(input, options.fields!)));
      break;
    case "flatten":
      outputs.push(await flattenPdf(input));
      break;
    case "compress":
      outputs.push(await compressPdf(input.bytes, options.dpi));
      break;
    case "metadata":
      setMetadata(input.doc, { ...options.metadata, title: options.metadata?.title ?? input.doc.getTitle() ?? "" }, undefined, undefined);
      outputs.push(await save(input.doc));
      break;
    // The input as it is (decrypted, when it was encrypted): the sealing step encrypts or signs it.
    case "encrypt":
    case "sign":
      outputs.push(input.bytes);
      break;
  }
  return { outputs: await Promise.all(outputs.map((pdf) => checked(pdf, deps))), bytesBefore: bytes };
}

async function checked(pdf: Uint8Array, deps: OperationDeps): Promise<{ pdf: Uint8Array; pages: number }> {
  if (pdf.byteLength > deps.maxOutputBytes) throw new ApiError("LIMIT_EXCEEDED", `The resulting PDF has ${pdf.byteLength} bytes; the limit is ${deps.maxOutputBytes} (RENDER_MAX_OUTPUT_BYTES).`);
  const pages = (await PDFDocument.load(pdf, { updateMetadata: false })).getPageCount();
  if (pages > deps.maxPages) throw new ApiError("LIMIT_EXCEEDED", `The resulting PDF has ${pages} pages; the limit is ${deps.maxPages} (RENDER_MAX_PAGES).`);
  return { pdf, pages };
}
