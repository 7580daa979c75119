/** operation-options: what `POST /v1/pdf-operations` takes (issue 30; docs/pdf.md "Operations on PDFs") — one flat
 * object, so that a field of the wrong type is pointed at exactly, and the table of which options each operation takes,
 * checked by checkOptions. */
import { CloneType, Type, type Static } from "@sinclair/typebox";
import type { ErrorDetail } from "../errors";
import { Identifier } from "../http/schemas";
import { literalUnion } from "../lib/literals";
import { PdfPassword } from "../pdf/encrypt";
import { PAGE_RANGE } from "../pdf/operations/open";
import { STAMP_POSITIONS } from "../pdf/operations/stamp";
import { SignatureSettings } from "../pdf/sign";
import { PdfMetadata } from "./pdf-options";

export const PDF_OPERATIONS = ["merge", "split", "rotate", "stamp", "watermark", "fill", "flatten", "compress", "metadata", "encrypt", "sign"] as const;
export type PdfOperationName = (typeof PDF_OPERATIONS)[number];

/** MAX_OPERATION_INPUTS: a merge takes up to 50 PDFs; every other operation one. */
export const MAX_OPERATION_INPUTS = 50;
const MAX_PAGE = 100_000;

export const OperationInput = Type.Object(
  {
    assetId: Type.Optional(CloneType(Identifier, { description: "An uploaded PDF asset (kind pdf, application/pdf) of the workspace. Exactly one of assetId and renderId." })),
    renderId: Type.Optional(CloneType(Identifier, { description: "A succeeded render of the workspace: its PDF, the very file its download gives." })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 127, description: "The password that opens an encrypted input (user or owner password)." })),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "merge: the input's bookmark. Default: its file name." })),
  },
  { additionalProperties: false },
);
export type OperationInput = Static<typeof OperationInput>;

const PageNumbers = (description: string) =>
  Type.Array(Type.Integer({ minimum: 1, maximum: MAX_PAGE }), { minItems: 1, maxItems: 10_000, uniqueItems: true, description: `${description} (1-based); all pages when left out.` });

const Colour = Type.String({ pattern: "^#[0-9a-fA-F]{6}$", errorMessage: "must be a colour #rrggbb", description: "The text's colour, #rrggbb." });

/** OperationOptions are the options of every operation; which ones an operation takes is OPTIONS_OF. */
export const OperationOptions = {
  bookmarks: Type.Optional(Type.Boolean({ description: "merge: one bookmark per input, at its first page. Default true." })),
  ranges: Type.Optional(
    Type.Array(Type.String({ pattern: PAGE_RANGE.source, errorMessage: "must be a page (3), a range (1-2) or a page onwards (4-)" }), {
      minItems: 1,
      maxItems: 500,
      description: "split: the page ranges, one PDF each: `3`, `1-2`, `4-` (page 4 to the last).",
    }),
  ),
  pages: Type.Optional(PageNumbers("rotate, stamp, watermark: the pages")),
  angle: Type.Optional(Type.Union([Type.Literal(90), Type.Literal(180), Type.Literal(270)], { description: "rotate: degrees clockwise, added to each page's own turn." })),
  text: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: "stamp, watermark: the text drawn (Latin-1 characters; Helvetica). Exactly one of text and assetId." })),
  assetId: Type.Optional(CloneType(Identifier, { description: "stamp, watermark: an uploaded PNG or JPEG image asset drawn instead of text." })),
  position: Type.Optional(CloneType(literalUnion(STAMP_POSITIONS), { description: "stamp, watermark: where on the page, 36 pt from its edges. Default top-right (stamp), center (watermark)." })),
  opacity: Type.Optional(Type.Number({ minimum: 0.05, maximum: 1, description: "stamp, watermark: 0.05 (faint) to 1 (opaque). Default 1 (stamp), 0.3 (watermark)." })),
  rotation: Type.Optional(Type.Number({ minimum: -360, maximum: 360, description: "stamp, watermark: degrees counter-clockwise about its centre. Default 0 (stamp), 45 (watermark)." })),
  fontSize: Type.Optional(Type.Number({ minimum: 4, maximum: 400, description: "stamp, watermark: the text's size in points. Default 24 (stamp), 72 (watermark)." })),
  color: Type.Optional(CloneType(Colour, { description: "stamp, watermark: the text's colour, #rrggbb. Default #c00000 (stamp), #808080 (watermark)." })),
  width: Type.Optional(Type.Number({ minimum: 4, maximum: 14_400, description: "stamp, watermark: the image's width in points (its height keeps its proportions). Default 144 (stamp), half the page (watermark)." })),
  fields: Type.Optional(
    Type.Record(Type.String({ minLength: 1, maxLength: 500 }), Type.Union([Type.String({ maxLength: 100_000 }), Type.Boolean(), Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000 })]), {
      maxProperties: 10_000,
      description: "fill: field name → value: text for a text field, true/false for a check box, an option for a radio group or dropdown, a list of options for a list box.",
    }),
  ),
  dpi: Type.Optional(Type.Integer({ minimum: 36, maximum: 600, description: "compress: images above this resolution are downsampled to it. Default 150." })),
  metadata: Type.Optional(CloneType(PdfMetadata, { minProperties: 1, description: "metadata: the information dictionary and XMP facts to set, as a render's pdf.metadata; the title defaults to the PDF's own." })),
  password: Type.Optional(CloneType(PdfPassword, { description: "encrypt: AES-256 with these passwords and permissions, as a render's pdf.password." })),
  signature: Type.Optional(CloneType(SignatureSettings, { description: "sign: PAdES B-B with one of the workspace's certificates, as a render's signature." })),
};

export type OperationOptions = { [K in keyof typeof OperationOptions]?: Static<(typeof OperationOptions)[K]> };

type OptionName = keyof typeof OperationOptions;

const STAMPING: OptionName[] = ["text", "assetId", "pages", "position", "opacity", "rotation", "fontSize", "color", "width"];

/** OPTIONS_OF: the options each operation takes; the first list is required. */
export const OPTIONS_OF: Record<PdfOperationName, { required: OptionName[]; optional: OptionName[]; inputs: [number, number] }> = {
  merge: { required: [], optional: ["bookmarks"], inputs: [2, MAX_OPERATION_INPUTS] },
  split: { required: ["ranges"], optional: [], inputs: [1, 1] },
  rotate: { required: ["angle"], optional: ["pages"], inputs: [1, 1] },
  stamp: { required: [], optional: STAMPING, inputs: [1, 1] },
  watermark: { required: [], optional: STAMPING, inputs: [1, 1] },
  fill: { required: ["fields"], optional: [], inputs: [1, 1] },
  flatten: { required: [], optional: [], inputs: [1, 1] },
  compress: { required: [], optional: ["dpi"], inputs: [1, 1] },
  metadata: { required: ["metadata"], optional: [], inputs: [1, 1] },
  encrypt: { required: ["password"], optional: [], inputs: [1, 1] },
  sign: { required: ["signature"], optional: [], inputs: [1, 1] },
};

/** checkOptions answers what is wrong with an operation's options and inputs before any PDF is read: an option the
 * operation does not take, a required one missing, the number of inputs, an input naming neither or both sources. */
export function checkOptions(operation: PdfOperationName, inputs: OperationInput[], options: OperationOptions): ErrorDetail[] {
  const table = OPTIONS_OF[operation];
  const problems: ErrorDetail[] = [];
  const [least, most] = table.inputs;
  if (inputs.length < least || inputs.length > most)
    problems.push({ path: "/inputs", message: least === most ? `${operation} takes exactly one input` : `${operation} takes ${least} to ${most} inputs` });
  inputs.forEach((input, i) => {
    if ((input.assetId === undefined) === (input.renderId === undefined)) problems.push({ path: `/inputs/${i}`, message: "give exactly one of assetId and renderId" });
    if (input.title !== undefined && operation !== "merge") problems.push({ path: `/inputs/${i}/title`, message: "only merge takes a title (the input's bookmark)" });
  });
  for (const name of Object.keys(OperationOptions) as OptionName[]) {
    const given = options[name] !== undefined;
    if (given && !table.required.includes(name) && !table.optional.includes(name)) problems.push({ path: `/${name}`, message: `${operation} does not take ${name}` });
    if (!given && table.required.includes(name)) problems.push({ path: `/${name}`, message: `${operation} needs ${name}` });
  }
  if ((operation === "stamp" || operation === "watermark") && (options.text === undefined) === (options.assetId === undefined))
    problems.push({ path: "/text", message: `${operation} takes exactly one of text and assetId` });
  if (options.width !== undefined && options.text !== undefined) problems.push({ path: "/width", message: "width sizes an image (assetId); a text's size is fontSize" });
  if (options.fontSize !== undefined && options.assetId !== undefined) problems.push({ path: "/fontSize", message: "fontSize sizes a text; an image's size is width" });
  if (options.color !== undefined && options.assetId !== undefined) problems.push({ path: "/color", message: "color is a text's colour; an image keeps its own" });
  return problems;
}
