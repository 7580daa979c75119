/** encrypt: password protection of a PDF with AES-256 (issue 13, `pdf.password`). */
import { PDF, type PermissionOptions } from "@libpdf/core";

/** encryptPdf answers the PDF encrypted with AES-256: `user` opens it (none: anyone may), `owner` lifts the `permissions`. */
export async function encryptPdf(bytes: Uint8Array, options: { user?: string; owner: string; permissions?: PermissionOptions }): Promise<Uint8Array> {
  const pdf = await PDF.load(bytes);
  pdf.setProtection({ userPassword: options.user, ownerPassword: options.owner, permissions: options.permissions, algorithm: "AES-256" });
  return pdf.save();
}
