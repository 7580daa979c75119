/**
 * pdfa: PDF/A-2b and PDF/A-3b by Debian's Ghostscript (`gs -dPDFA`). Ghostscript rewrites the whole document: links,
 * the tag structure and the document's metadata do not survive (finish.ts writes the metadata again afterwards;
 * docs/pdf.md "standard").
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ApiError } from "../errors";
import type { PdfStandard } from "./pdf-options";
import { processTempDir } from "./tempdir";

/** SRGB_PROFILE is Debian's sRGB profile (package ghostscript); without an OutputIntent gs writes no valid PDF/A. */
export const SRGB_PROFILE = "/usr/share/color/icc/ghostscript/default_rgb.icc";

// Ghostscript's own lib/PDFA_def.ps, pointed at the sRGB profile: it makes the OutputIntent PDF/A requires.
const PDFA_DEF = `%!
/ICCProfile (${SRGB_PROFILE}) def
[/_objdef {icc_PDFA} /type /stream /OBJ pdfmark
[{icc_PDFA} << /N 3 >> /PUT pdfmark
[{icc_PDFA} ICCProfile (r) file /PUT pdfmark
[/_objdef {OutputIntent_PDFA} /type /dict /OBJ pdfmark
[{OutputIntent_PDFA} << /Type /OutputIntent /S /GTS_PDFA1 /DestOutputProfile {icc_PDFA} /OutputConditionIdentifier (sRGB) >> /PUT pdfmark
[{Catalog} << /OutputIntents [ {OutputIntent_PDFA} ] >> /PUT pdfmark
`;

/** convertToPdfA answers the PDF converted to the standard by Ghostscript. */
export async function convertToPdfA(pdf: Uint8Array, standard: PdfStandard): Promise<Uint8Array> {
  return ghostscript(pdf, standard === "PDF/A-3b" ? 3 : 2);
}

/** ghostscript runs `gs -dPDFA=<part>` on the PDF in a folder of its own under renderd's temporary folder. */
async function ghostscript(pdf: Uint8Array, part: 2 | 3): Promise<Uint8Array> {
  const dir = mkdtempSync(join(processTempDir(), "pdfa-"));
  try {
    writeFileSync(join(dir, "in.pdf"), pdf);
    writeFileSync(join(dir, "PDFA_def.ps"), PDFA_DEF);
    const args = [
      `-dPDFA=${part}`,
      "-dPDFACompatibilityPolicy=1",
      // Left to itself gs turns a page whose text is mostly diagonal (the TEST mark) to landscape.
      "-dAutoRotatePages=/None",
      "-sColorConversionStrategy=RGB",
      "-sDEVICE=pdfwrite",
      "-dBATCH",
      "-dNOPAUSE",
      "-dQUIET",
      `--permit-file-read=${SRGB_PROFILE}`,
      `-sOutputFile=${join(dir, "out.pdf")}`,
      join(dir, "PDFA_def.ps"),
      join(dir, "in.pdf"),
    ];
    let proc: Bun.Subprocess<"ignore", "ignore", "pipe">;
    try {
      proc = Bun.spawn(["gs", ...args], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    } catch {
      throw new ApiError("RENDER_FAILED", "PDF/A needs Ghostscript (`gs`), which is not installed on this server; ask the operator to run install.sh again.");
    }
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    if (code !== 0) throw new ApiError("RENDER_FAILED", `Ghostscript could not convert the document to PDF/A (exit ${code}): ${stderr.trim().slice(0, 300)}`);
    return new Uint8Array(readFileSync(join(dir, "out.pdf")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
