/** image-output: a render's `output` (issue 30; docs/pdf.md "Images as a render's output") — the pages of its PDF also
 * made as images, listed in `result.images`. */
import { Type, type Static } from "@sinclair/typebox";
import { literalUnion } from "../lib/literals";
import { IMAGE_DPI, IMAGE_FORMATS } from "../pdf/rasterize";

/** OUTPUT_DPI is an image output's default resolution: 96 dpi draws a page at its CSS pixel size (a 1200 × 630 px social
 * card is a 1200 × 630 image). */
export const OUTPUT_DPI = 96;

export const ImageOutput = Type.Object(
  {
    format: literalUnion(IMAGE_FORMATS, { description: "png, jpeg or webp." }),
    dpi: Type.Optional(Type.Integer({ ...IMAGE_DPI, description: `Pixels per inch of the page, ${IMAGE_DPI.minimum} to ${IMAGE_DPI.maximum}. Default ${OUTPUT_DPI}: the page's CSS pixel size.` })),
    pages: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 100_000 }), { minItems: 1, maxItems: 500, uniqueItems: true, description: "The pages to make images of (1-based); all pages when left out." }),
    ),
  },
  { additionalProperties: false, description: "Make images of the PDF's pages too: result.images lists them, each at a signed address." },
);
export type ImageOutput = Static<typeof ImageOutput>;
