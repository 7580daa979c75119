/**
 * pdf-options: the `pdf` options of a render and of a template (issue 13, docs/pdf.md) — the request schema, and the
 * stored form the worker finishes a printed PDF with (finish.ts).
 */
import { CloneType, Type, type Static } from "@sinclair/typebox";
import { Identifier } from "../http/schemas";
import { literalUnion } from "../lib/literals";
import { PdfPassword } from "../pdf/encrypt";

const closed = { additionalProperties: false } as const;

/** MAX_PDF_ATTACHMENTS bounds `attachAssetIds` and `embeddedFiles` each. */
export const MAX_PDF_ATTACHMENTS = 20;

const Text = (description: string) => Type.String({ maxLength: 1000, description: `${description} (up to 1000 characters).` });

export const PdfMetadata = Type.Object(
  {
    title: Type.Optional(Text("The PDF's title; default the render's filename")),
    author: Type.Optional(Text("The PDF's author")),
    subject: Type.Optional(Text("The PDF's subject")),
    keywords: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 50, description: "The PDF's keywords (at most 50, each up to 200 characters)." })),
    language: Type.Optional(
      Type.String({
        pattern: "^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$",
        errorMessage: "must be a language tag such as en or de-CH",
        description: "A BCP 47 language tag (en, de-CH): the document's <html lang> and the PDF's /Lang.",
      }),
    ),
  },
  { ...closed, description: "The PDF's document information (and XMP metadata)." },
);
export type PdfMetadata = Static<typeof PdfMetadata>;

export const PDF_STANDARDS = ["PDF/A-2b", "PDF/A-3b"] as const;
export type PdfStandard = (typeof PDF_STANDARDS)[number];

/** The AFRelationship values of PDF/A-3 (ISO 19005-3 annex E). */
export const AF_RELATIONSHIPS = ["Source", "Data", "Alternative", "Supplement", "Unspecified"] as const;

export const EmbeddedFile = Type.Object(
  {
    assetId: CloneType(Identifier, { description: "The uploaded asset (kind pdf, or any file) to embed." }),
    name: Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: "^[^/\\\\\\x00-\\x1f]+$",
      errorMessage: "must be a file name without slashes",
      description: "The file name shown in the viewer's attachment list, such as factur-x.xml (1 to 255 characters, no slashes).",
    }),
    relationship: Type.Optional(literalUnion(AF_RELATIONSHIPS, { description: "Its PDF/A-3 AFRelationship to the document. Default Unspecified (Data for factur-x.xml)." })),
  },
  { ...closed, description: "A file embedded in the PDF." },
);
export type EmbeddedFile = Static<typeof EmbeddedFile>;

/** FACTURX_FILE_NAME is the name Factur-X 1.0.07 (and ZUGFeRD 2.1 onwards) gives the embedded invoice XML. */
export const FACTURX_FILE_NAME = "factur-x.xml";

/** FACTURX_LEVELS are the fx:ConformanceLevel values of Factur-X 1.0.07, one per profile of its XML. */
export const FACTURX_LEVELS = ["MINIMUM", "BASIC WL", "BASIC", "EN 16931", "EXTENDED"] as const;

/** FacturX is the `pdf.facturX` option: the profile of the embedded factur-x.xml, stated in the XMP (docs/pdf.md). */
export const FacturX = Type.Object(
  { conformanceLevel: literalUnion(FACTURX_LEVELS, { description: "The Factur-X profile of the embedded factur-x.xml." }) },
  { ...closed, description: "Mark the PDF as a Factur-X (ZUGFeRD) e-invoice: needs PDF/A-3b and an embedded factur-x.xml." },
);
export type FacturX = Static<typeof FacturX>;

/** PdfOptions is the `pdf` of a render request and a template's default for its renders (docs/pdf.md). */
export const PdfOptions = Type.Object(
  {
    tagged: Type.Optional(Type.Boolean({ description: "Print a tagged (accessible) PDF with a structure tree from the HTML. Default false." })),
    outline: Type.Optional(Type.Boolean({ description: "Add a bookmark outline from the document's headings (h1–h6). Default false." })),
    metadata: Type.Optional(PdfMetadata),
    attachAssetIds: Type.Optional(Type.Array(Identifier, { maxItems: MAX_PDF_ATTACHMENTS, description: "Uploaded PDF assets appended after the document's pages, in order (at most 20)." })),
    standard: Type.Optional(literalUnion(PDF_STANDARDS, { description: "Convert to PDF/A-2b or PDF/A-3b for archiving." })),
    embeddedFiles: Type.Optional(Type.Array(EmbeddedFile, { maxItems: MAX_PDF_ATTACHMENTS, description: "Files embedded in the PDF (at most 20)." })),
    facturX: Type.Optional(FacturX),
    password: Type.Optional(PdfPassword),
  },
  { ...closed, description: "What is done to the printed PDF: tags, outline, metadata, appended and embedded files, PDF/A, a password." },
);
export type PdfOptions = Static<typeof PdfOptions>;

/** TemplatePdfOptions is a template's default `pdf`: everything but `password`, which a render gives for itself, so
 * that no password is ever kept in a template (docs/pdf.md "Passwords"). */
export const TemplatePdfOptions = Type.Omit(PdfOptions, ["password"], closed);
export type TemplatePdfOptions = Static<typeof TemplatePdfOptions>;

/** mergePdfOptions lays a render's own `pdf` over its template's default: each field the render gives wins whole
 * (`metadata` field by field), so a render can drop a template's attachments with `attachAssetIds: []`. */
export function mergePdfOptions(template: PdfOptions | undefined, render: PdfOptions | undefined): PdfOptions {
  const merged: PdfOptions = { ...template, ...render };
  if (template?.metadata && render?.metadata) merged.metadata = { ...template.metadata, ...render.metadata };
  return merged;
}

/** Finishing is what the worker does to a printed PDF, fixed when the render is accepted (kept in its print job). */
export interface Finishing {
  /** A test render (test: true, a draft, a preview): the diagonal TEST mark on every page. */
  testMark: boolean;
  /** The metadata with its title defaulted to the render's filename. */
  metadata: PdfMetadata & { title: string };
  attachAssetIds?: string[];
  standard?: PdfStandard;
  embeddedFiles?: EmbeddedFile[];
  /** A Factur-X invoice: the XMP states its fx: facts (xmp.ts). */
  facturX?: FacturX;
}
