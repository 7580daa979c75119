/** operations/open: an operation's input opened for pdf-lib — refused when it is not a PDF, decrypted by qpdf when it is
 * encrypted and its password is given — and the page lists and ranges its options name, checked against it. Every
 * refusal is an OperationError carrying the JSON pointer of what to fix. */
import { PDFDocument } from "pdf-lib";
import { runTool, ToolFailed } from "../tool";

/** OperationError: the operation cannot be done as asked; `path` is the JSON pointer of the field to fix. */
export class OperationError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** OpenedPdf is an input as pdf-lib holds it, with its bytes decrypted (the bytes pdf-lib was given). */
export interface OpenedPdf {
  doc: PDFDocument;
  bytes: Uint8Array;
}

// The header may follow up to 1 KiB of leading junk, as readers allow.
const HEADER = "%PDF-";

/** openInput opens input `at` (`/inputs/0`): not a PDF, damaged, or encrypted without (or with a wrong) password each
 * throw an OperationError naming the input or its password. */
export async function openInput(bytes: Uint8Array, at: string, password?: string): Promise<OpenedPdf> {
  if (!Buffer.from(bytes.subarray(0, 1024)).toString("latin1").includes(HEADER)) throw new OperationError(at, "is not a PDF (no %PDF- header); name an uploaded PDF asset or a render");
  try {
    return await loaded(bytes);
  } catch {
    // pdf-lib reads no encrypted file (and stumbles on some it could): qpdf takes the encryption off, or rewrites a file
    // it can repair, and pdf-lib reads its output.
  }
  const plain = await decrypt(bytes, at, password);
  try {
    return await loaded(plain);
  } catch {
    throw new OperationError(at, "cannot be read: the PDF is damaged");
  }
}

/** loaded opens bytes with pdf-lib and reads its page tree, which a lenient parse of a damaged file may lack. */
async function loaded(bytes: Uint8Array): Promise<OpenedPdf> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  if (doc.getPageCount() === 0) throw new Error("no pages");
  return { doc, bytes };
}

/** decrypt answers the file without its encryption, opened with `password` (a file with an empty user password opens
 * without one). */
async function decrypt(bytes: Uint8Array, at: string, password?: string): Promise<Uint8Array> {
  try {
    return (await runTool("qpdf", { args: [`--password=${password ?? ""}`, "--decrypt", "{in.pdf}", "-"], files: { "in.pdf": bytes } })).stdout;
  } catch (e) {
    if (!(e instanceof ToolFailed) || e.code === -1) throw e;
    if (!/password/i.test(e.stderr)) throw new OperationError(at, "cannot be read: the PDF is damaged");
    if (password === undefined) throw new OperationError(`${at}/password`, "the PDF is encrypted: give the password that opens it");
    throw new OperationError(`${at}/password`, "does not open the PDF");
  }
}

/** PAGE_RANGE is one range of `split`: `3`, `1-2`, or `4-` (page 4 to the last). */
export const PAGE_RANGE = /^([1-9]\d{0,5})(?:-([1-9]\d{0,5})?)?$/;

/** pageIndexes answers the 0-based indexes of `pages` (1-based; all when undefined), each checked against the count. */
export function pageIndexes(pages: number[] | undefined, count: number, at = "/pages"): number[] {
  if (pages === undefined) return Array.from({ length: count }, (_, i) => i);
  return pages.map((page, i) => {
    if (page > count) throw new OperationError(`${at}/${i}`, `page ${page} is past the PDF's last page, ${count}`);
    return page - 1;
  });
}

/** rangeIndexes answers the 0-based pages of each range of `split` (`3`, `1-2`, `4-`), checked against the count. */
export function rangeIndexes(ranges: string[], count: number): number[][] {
  return ranges.map((range, i) => {
    const m = PAGE_RANGE.exec(range);
    if (!m) throw new OperationError(`/ranges/${i}`, "must be a page (3), a range (1-2) or a page onwards (4-)");
    const first = Number(m[1]);
    const last = m[2] !== undefined ? Number(m[2]) : range.endsWith("-") ? count : first;
    if (last < first) throw new OperationError(`/ranges/${i}`, `the range ${range} ends before it starts`);
    if (first > count || last > count) throw new OperationError(`/ranges/${i}`, `the range ${range} goes past the PDF's last page, ${count}`);
    return Array.from({ length: last - first + 1 }, (_, k) => first - 1 + k);
  });
}
