/** poppler: runs a poppler tool (pdfinfo, pdftotext, pdfdetach…) on a PDF written to a temporary file. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** poppler answers the tool's standard output; it throws with its error output when the tool fails. */
export function poppler(pdf: Uint8Array, argv: (file: string) => string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "renderd-poppler-"));
  try {
    const file = join(dir, "out.pdf");
    writeFileSync(file, pdf);
    const run = Bun.spawnSync(argv(file));
    if (run.exitCode !== 0) throw new Error(`${argv(file)[0]} failed: ${run.stderr.toString()}`);
    return run.stdout.toString();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
