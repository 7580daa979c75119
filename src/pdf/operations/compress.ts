/** operations/compress: a smaller PDF — Ghostscript rewrites it with images above `dpi` downsampled, identical images
 * kept once and fonts subset, then qpdf packs its objects into compressed object streams. A result no smaller than
 * the input is not kept: the input is answered as it was. */
import { runTool } from "../tool";

export const COMPRESS_DPI = 150;

/** compressPdf answers the smaller of the compressed PDF and the input. */
export async function compressPdf(pdf: Uint8Array, dpi = COMPRESS_DPI): Promise<Uint8Array> {
  const images = ["Color", "Gray", "Mono"].flatMap((kind) => [
    `-dDownsample${kind}Images=true`,
    `-d${kind}ImageResolution=${kind === "Mono" ? dpi * 2 : dpi}`,
    // Downsample anything above the dpi, not only images 1.5 times over it (Ghostscript's default threshold).
    `-d${kind}ImageDownsampleThreshold=1.0`,
  ]);
  const gs = await runTool("gs", {
    args: [
      "-q",
      "-dSAFER",
      "-dBATCH",
      "-dNOPAUSE",
      "-sDEVICE=pdfwrite",
      "-dCompatibilityLevel=1.7",
      "-dAutoRotatePages=/None",
      "-dDetectDuplicateImages=true",
      "-dSubsetFonts=true",
      "-dCompressFonts=true",
      ...images,
      "-sOutputFile={out.pdf}",
      "{in.pdf}",
    ],
    files: { "in.pdf": pdf },
    outputs: ["out.pdf"],
  });
  const packed = (await runTool("qpdf", { args: ["--object-streams=generate", "--compress-streams=y", "--recompress-flate", "--compression-level=9", "{in.pdf}", "-"], files: { "in.pdf": gs.outputs["out.pdf"]! } })).stdout;
  return packed.byteLength < pdf.byteLength ? packed : pdf;
}
