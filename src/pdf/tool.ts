/** tool: runs one of the PDF command-line tools renderd drives (poppler's pdftoppm and pdfinfo, qpdf, Ghostscript, cwebp)
 * on bytes in memory and answers its standard output — the one place that spawns them, says which Debian package is
 * missing, and keeps their scratch files in a folder of their own that is removed when the tool ends. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The Debian package of each tool (install.sh installs them all). */
const PACKAGES: Record<string, string> = { pdftoppm: "poppler-utils", pdfinfo: "poppler-utils", qpdf: "qpdf", gs: "ghostscript", cwebp: "webp" };

/** ToolFailed: the tool ran and refused (its exit code and the start of its error output), or is not installed. */
export class ToolFailed extends Error {
  constructor(
    readonly tool: string,
    readonly code: number,
    readonly stderr: string,
  ) {
    super(code === -1 ? `${tool} is not installed on this server (Debian package ${PACKAGES[tool] ?? tool}; install.sh installs it)` : `${tool} failed (exit ${code}): ${stderr.slice(0, 300)}`);
  }
}

/** ToolRun is one run: the arguments (`{name}` stands for the path of `files[name]`), the bytes on its standard input,
 * and files it reads or writes by name in its scratch folder. */
export interface ToolRun {
  args: string[];
  stdin?: Uint8Array;
  files?: Record<string, Uint8Array>;
  /** Files the tool writes, read back after it ends (by name in the scratch folder). */
  outputs?: string[];
}

/** runTool runs `tool` and answers its standard output and the files it wrote; ToolFailed when it exits non-zero. */
export async function runTool(tool: string, run: ToolRun): Promise<{ stdout: Uint8Array; outputs: Record<string, Uint8Array> }> {
  const needsDir = run.files !== undefined || run.outputs !== undefined;
  const dir = needsDir ? await mkdtemp(join(tmpdir(), "renderd-pdf-")) : "";
  try {
    for (const [name, bytes] of Object.entries(run.files ?? {})) await writeFile(join(dir, name), bytes);
    const args = run.args.map((a) => a.replace(/\{([\w.-]+)\}/g, (_, name: string) => join(dir, name)));
    const proc = spawn(tool, args, run.stdin);
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).text(), proc.exited]);
    // qpdf's exit code 3 is "succeeded with warnings" (a damaged file it repaired).
    if (code !== 0 && !(tool === "qpdf" && code === 3)) throw new ToolFailed(tool, code, stderr.trim());
    const outputs: Record<string, Uint8Array> = {};
    for (const name of run.outputs ?? []) outputs[name] = await Bun.file(join(dir, name)).bytes();
    return { stdout, outputs };
  } finally {
    if (needsDir) await rm(dir, { recursive: true, force: true });
  }
}

function spawn(tool: string, args: string[], stdin: Uint8Array | undefined) {
  try {
    return Bun.spawn([tool, ...args], { stdin: stdin ?? "ignore", stdout: "pipe", stderr: "pipe" });
  } catch {
    throw new ToolFailed(tool, -1, "");
  }
}
