/**
 * renders/pdf: a render's `pdf` options (docs/pdf.md) checked when the render is accepted and turned into its print
 * job's settings (tagged, outline, language) and finishing (finish.ts). A template's `pdf` is the default of its
 * renders; the render's own fields win (mergePdfOptions).
 */
import { ApiError, type ErrorDetail } from "../../errors";
import type { FindAsset, PrintJob } from "../../render/job";
import { FACTURX_FILE_NAME, type PdfOptions } from "../../render/pdf-options";
import { XML_MEDIA_TYPES } from "../assets/model";

/** PdfContext is what the options of one render are checked and finished with. */
export interface PdfContext {
  find: FindAsset;
  /** A test render: test: true, a draft or a preview. */
  test: boolean;
  filename: string;
  /** The JSON pointer of the render request (`` or `/items/3`). */
  at: string;
}

/** withPdfOptions answers the job with the options applied; it throws BAD_REQUEST for embedded files in PDF/A-2b or a
 * Factur-X option that makes no Factur-X file, and ASSET_INVALID for an asset that is missing or of the wrong type. A
 * password becomes the job's encryption (seal-pdf.ts). */
export function withPdfOptions(job: PrintJob, options: PdfOptions, context: PdfContext): PrintJob {
  const { find, at } = context;
  assertCombinable(options, at);
  const problems: ErrorDetail[] = [];
  (options.attachAssetIds ?? []).forEach((id, i) => {
    const asset = find(id);
    const path = `${at}/pdf/attachAssetIds/${i}`;
    if (!asset) problems.push({ path, message: `no uploaded asset ${id} in this workspace` });
    else if (asset.mediaType !== "application/pdf") problems.push({ path, message: `asset ${id} is ${asset.mediaType}; only PDF assets can be appended` });
  });
  (options.embeddedFiles ?? []).forEach((file, i) => {
    const asset = find(file.assetId);
    const path = `${at}/pdf/embeddedFiles/${i}/assetId`;
    if (!asset) problems.push({ path, message: `no uploaded asset ${file.assetId} in this workspace` });
    else if (file.name === FACTURX_FILE_NAME && !(XML_MEDIA_TYPES as readonly string[]).includes(asset.mediaType))
      problems.push({ path, message: `${FACTURX_FILE_NAME} must be an XML asset (text/xml); asset ${file.assetId} is ${asset.mediaType}` });
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
  if (isFacturX(options)) finish.facturX = { conformanceLevel: options.facturX?.conformanceLevel ?? "EN 16931" };
  return { ...job, pdf: settings, finish, ...(options.password && { encryption: options.password }) };
}

/** isFacturX: a PDF/A-3b document with factur-x.xml embedded is a Factur-X invoice (Factur-X 1.0.07, docs/pdf.md). */
function isFacturX(options: PdfOptions): boolean {
  return options.standard === "PDF/A-3b" && (options.embeddedFiles ?? []).some((f) => f.name === FACTURX_FILE_NAME);
}

// Factur-X 1.0.07 allows the invoice XML the relationships Data, Source and Alternative only.
const FACTURX_RELATIONSHIPS = ["Data", "Source", "Alternative"];

function assertCombinable(options: PdfOptions, at: string): void {
  const refuse = (path: string, message: string) => {
    throw new ApiError("BAD_REQUEST", "The request body is not valid.", { details: [{ path: `${at}/pdf/${path}`, message }] });
  };
  if (options.standard === "PDF/A-2b" && options.embeddedFiles?.length)
    refuse("embeddedFiles", "PDF/A-2b allows no embedded files of other kinds; use standard PDF/A-3b (as Factur-X does)");
  if (options.facturX && !isFacturX(options))
    refuse("facturX", `a Factur-X invoice is a PDF/A-3b document with ${FACTURX_FILE_NAME} in embeddedFiles; add both, or leave facturX out`);
  const index = isFacturX(options) ? options.embeddedFiles!.findIndex((f) => f.name === FACTURX_FILE_NAME) : -1;
  const relationship = options.embeddedFiles?.[index]?.relationship ?? "Data";
  if (index >= 0 && !FACTURX_RELATIONSHIPS.includes(relationship))
    refuse(`embeddedFiles/${index}/relationship`, `Factur-X allows ${FACTURX_FILE_NAME} the relationships Data, Source or Alternative only`);
}
