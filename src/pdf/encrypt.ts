/** encrypt: password protection of a PDF with AES-256 (issue 13, `pdf.password`). */
import { PDF } from "@libpdf/core";
import { Type, type Static } from "@sinclair/typebox";

const Password = Type.String({ minLength: 1, maxLength: 127 });

/** PdfPassword is `pdf.password`: `user` opens the file (none: anyone may), `owner` lifts the permissions. */
export const PdfPassword = Type.Object(
  {
    user: Type.Optional(Password),
    owner: Password,
    /** Each allowed unless set to false. */
    permissions: Type.Optional(Type.Object({ print: Type.Optional(Type.Boolean()), copy: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type PdfPassword = Static<typeof PdfPassword>;

/** encryptPdf answers the PDF encrypted with AES-256 (revision 6) under `password`. */
export async function encryptPdf(bytes: Uint8Array, password: PdfPassword): Promise<Uint8Array> {
  const pdf = await PDF.load(bytes);
  pdf.setProtection({ userPassword: password.user, ownerPassword: password.owner, permissions: password.permissions, algorithm: "AES-256" });
  return pdf.save();
}
