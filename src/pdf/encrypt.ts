/** encrypt: password protection of a PDF with AES-256 (issue 13, `pdf.password`). */
import { PDF } from "@libpdf/core";
import { Type, type Static } from "@sinclair/typebox";

const Password = (description: string) => Type.String({ minLength: 1, maxLength: 127, description: `${description} (1 to 127 characters).` });

/** PdfPassword is `pdf.password`: `user` opens the file (none: anyone may), `owner` lifts the permissions. */
export const PdfPassword = Type.Object(
  {
    user: Type.Optional(Password("The password that opens the file; without it anyone may open it")),
    owner: Password("The password that lifts the permissions"),
    permissions: Type.Optional(
      Type.Object(
        {
          print: Type.Optional(Type.Boolean({ description: "Allow printing. Default true." })),
          copy: Type.Optional(Type.Boolean({ description: "Allow copying text and images. Default true." })),
        },
        { additionalProperties: false, description: "What a reader without the owner password may do; each is allowed unless set to false." },
      ),
    ),
  },
  { additionalProperties: false, description: "Encrypt the PDF with AES-256. Never kept in a template." },
);
export type PdfPassword = Static<typeof PdfPassword>;

/** encryptPdf answers the PDF encrypted with AES-256 (revision 6) under `password`. */
export async function encryptPdf(bytes: Uint8Array, password: PdfPassword): Promise<Uint8Array> {
  const pdf = await PDF.load(bytes);
  pdf.setProtection({ userPassword: password.user, ownerPassword: password.owner, permissions: password.permissions, algorithm: "AES-256" });
  return pdf.save();
}
