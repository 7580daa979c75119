/**
 * renders/pdf: a render's `pdf` options (docs/pdf.md) checked when the render is accepted and turned into its print
 * job's settings (tagged, outline, language) and finishing (finish.ts). A template's `pdf` is the default of its
 * renders; the render's own fields win (mergePdfOptions).
 */
import { ApiError, type ErrorDetail } from "../../errors";
import type { FindAsset, PrintJob } from "../../render/job";
import type { PdfOptions } from "../../render/pdf-options";

/** PdfContext is what the options of one render are checked and finished with. */
export interface PdfContext {
  find: FindAsset;
  /** A test render: test: true, a draft or a preview. */
  test: boolean;
  filename: string;
  /** The JSON pointer of the render request (`` or `/items/3`). */
  at: string;
}

/** withPdfOptions answers the job with the options applied; it throws BAD_REQUEST for embedded files in PDF/A-2b and
 * ASSET_INVALID for an asset that is missing or not a PDF. A password becomes the job's encryption (seal-pdf.ts). */
export function withPdfOptions(job: PrintJob, options: PdfOptions, context: PdfContext): PrintJob {
  const { find, at } = context;
  if (options.standard === "PDF/A-2b" && options.embeddedFiles?.length)
    throw new ApiError("BAD_REQUEST", "The request body is not valid.", {
      details: [{ path: `${at}/pdf/embeddedFiles`, message: "PDF/A-2b allows no embedded files of other kinds; use standard PDF/A-3b (as Factur-X does)" }],
    });
  const problems: ErrorDetail[] = [];
  (options.attachAssetIds ?? []).forEach((id, i) => {
    const kind = find(id)?.kind;
    const path = `${at}/pdf/attachAssetIds/${i}`;
    if (kind === undefined) problems.push({ path, message: `no uploaded asset ${id} in this workspace` });
    else if (kind !== "pdf") problems.push({ path, message: `asset ${id} is a ${kind} asset; only PDF assets can be appended` });
  });
  (options.embeddedFiles ?? []).forEach((file, i) => {
    if (!find(file.assetId)) problems.push({ path: `${at}/pdf/embeddedFiles/${i}/assetId`, message: `no uploaded asset ${file.assetId} in this workspace` });
  });
  if (problems.length) throw new ApiError("ASSET_INVALID", "The pdf options name assets that cannot be used; see details.", { details: problems });

  const settings = { ...job.pdf };
  if (options.tagged) settings.tagged = true;
  if (options.outline) settings.outline = true;
  if (options.metadata?.language) settings.lang = options.metadata.language;
  const finish: PrintJob["finish"] = { testMark: context.test, metadata: { ...options.metadata, title: options.metadata?.title ?? context.filename } };
  if (options.attachAssetIds?.length) finish.attachAssetIds = options.attachAssetIds;
  if (options.standard) finish.standard = options.standard;
  if (options.embeddedFiles?.length) finish.embeddedFiles = options.embeddedFiles;
  return { ...job, pdf: settings, finish, ...(options.password && { encryption: options.password }) };
}
