/** reports/service: Excel reports (from sheet definitions or a workbook asset) and string rendering (DESIGN.md 4).
 * Neither creates a render, usage or an event (spec 6); an XLSX output is a real document (spec 2.2) and is counted
 * against documentsPerMonth in the transaction that answers it. */
import { ApiError, type ErrorDetail } from "../../errors";
import type { Clock } from "../../lib/clock";
import { uploadedAsset } from "../../store/assets";
import type { FileStore } from "../../store/files";
import type { Reads, Store } from "../../store/store";
import { localeProblem, renderString, TemplateSyntaxError } from "../../render/strings";
import { buildSheetsWorkbook, fillWorkbook } from "../../render/xlsx";
import { allowanceRefusal, chargeAllowances, readUse, type Demand } from "../renders/allowances";
import { getAllowances } from "../workspaces/service";
import type { ReportBody, StringRenderBody, StringRenderResult } from "./model";
import { createReportRender, type RenderDeps } from "../renders/service";

/** ReportDeps is what reports work with: the store, the clock, the asset files, and the renders a PDF report queues. */
export interface ReportDeps {
  store: Store;
  clock: Clock;
  files: FileStore;
  renders: RenderDeps;
}

/** ReportOutcome is a finished XLSX workbook to answer as bytes, or what a PDF report answers. */
export type ReportOutcome = { kind: "xlsx"; bytes: Uint8Array<ArrayBuffer>; filename: string } | { kind: "pdf"; status: number; body: unknown };

const XLSX_DOCUMENT: Demand = { real: 0, test: 0, xlsx: 1 };

function badRequest(details: ErrorDetail[]): ApiError {
  return new ApiError("BAD_REQUEST", "The request body is not valid.", { details });
}

// Fields of the other format are refused rather than ignored, so a mistyped request cannot silently do something else.
function unusedFields(body: ReportBody, fields: (keyof ReportBody)[], format: string): ErrorDetail[] {
  return fields.filter((f) => body[f] !== undefined).map((f) => ({ path: `/${f}`, message: `is only used with format ${format}` }));
}

/** xlsxFilename answers the attachment name: the given one with `.xlsx` added when missing, or `report.xlsx`. */
export function xlsxFilename(filename: string | undefined): string {
  if (filename === undefined) return "report.xlsx";
  return filename.toLowerCase().endsWith(".xlsx") ? filename : `${filename}.xlsx`;
}

// One message for a missing asset and another workspace's: never reveal that the other exists (DESIGN.md 2).
async function workbookBytes(deps: ReportDeps, workspaceId: string, id: string): Promise<Uint8Array> {
  const invalid = () =>
    new ApiError("ASSET_INVALID", `Asset ${id} is not an uploaded workbook of this workspace.`, {
      details: [{ path: "/workbookAssetId", message: "must name an uploaded asset of kind workbook" }],
    });
  const asset = await uploadedAsset(deps.store, workspaceId, id);
  if (asset?.kind !== "workbook") throw invalid();
  // Deleted between the query and here: the same answer as if it had been gone before.
  const bytes = await deps.files.read("assets", asset.sha256);
  if (!bytes) throw invalid();
  return bytes;
}

async function xlsxReport(deps: ReportDeps, workspaceId: string, body: ReportBody): Promise<ReportOutcome> {
  const problems = unusedFields(body, ["templateId", "version"], "pdf");
  if (body.sheets && body.workbookAssetId) problems.push({ path: "/workbookAssetId", message: "send sheets or workbookAssetId, not both" });
  if (!body.sheets && !body.workbookAssetId) problems.push({ path: "/sheets", message: "format xlsx needs sheets or workbookAssetId" });
  if (problems.length) throw badRequest(problems);

  // A refusal known now spares building a workbook that could not be answered; the charge below decides. A workbook is
  // no render: the last minute's renders do not decide it, and are bounded rather than counted.
  const [allowances, use] = await Promise.all([getAllowances(deps.store, workspaceId), readUse(deps.store, deps.clock, workspaceId, "at most")]);
  const early = allowanceRefusal(allowances, use, XLSX_DOCUMENT);
  if (early) throw early;
  // Built before it is counted: a bad definition or asset counts nothing.
  const bytes = body.sheets
    ? await buildSheetsWorkbook(body.data, body.sheets)
    : await fillWorkbook(await workbookBytes(deps, workspaceId, body.workbookAssetId!), body.data);
  await deps.store.tx((tx) => chargeAllowances(tx, deps.clock, workspaceId, XLSX_DOCUMENT));
  return { kind: "xlsx", bytes, filename: xlsxFilename(body.filename) };
}

/** pdfReport queues a PDF report: a real render of the template (its newest or given version) with the data, answered
 * 202 like POST /v1/renders; it sends its end event like any render (spec 6). */
export async function pdfReport(deps: ReportDeps, workspaceId: string, body: ReportBody): Promise<ReportOutcome> {
  if (body.templateId === undefined) throw badRequest([{ path: "/templateId", message: "is required when format is pdf" }]);
  const report = { templateId: body.templateId, version: body.version, data: body.data, filename: body.filename };
  const render = await createReportRender(deps.renders, workspaceId, report);
  return { kind: "pdf", status: 202, body: render };
}

/** createReport answers a report of `body.format` for a workspace (POST /v1/reports). */
export async function createReport(deps: ReportDeps, workspaceId: string, body: ReportBody): Promise<ReportOutcome> {
  if (body.format === "pdf") {
    const problems = unusedFields(body, ["sheets", "workbookAssetId"], "xlsx");
    if (problems.length) throw badRequest(problems);
    return pdfReport(deps, workspaceId, body);
  }
  return xlsxReport(deps, workspaceId, body);
}

/** renderText fills a template string from data (POST /v1/strings/render); a suspended workspace renders nothing. */
export async function renderText(store: Reads, workspaceId: string, body: StringRenderBody): Promise<StringRenderResult> {
  if ((await getAllowances(store, workspaceId)).suspended) throw new ApiError("FORBIDDEN", "The workspace is suspended; it renders nothing.");
  const problem = localeProblem(body);
  if (problem) throw badRequest([{ path: `/${problem.field}`, message: problem.message }]);
  try {
    return { text: renderString(body.template, body.data ?? null, { locale: body.locale, timeZone: body.timeZone }) };
  } catch (error) {
    if (error instanceof TemplateSyntaxError)
      throw new ApiError("TEMPLATE_INVALID", "The template does not parse.", { details: [{ path: "/template", message: error.message }] });
    throw error;
  }
}
