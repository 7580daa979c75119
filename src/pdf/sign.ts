/** sign: a detached CMS signature over a whole PDF — PAdES B-B (B-T with a timestamp authority), SHA-256 (issue 13). */
import { HttpTimestampAuthority, PDF, type Signer } from "@libpdf/core";
import { CloneType, Type, type Static } from "@sinclair/typebox";
import { Identifier } from "../http/schemas";
import { placeVisibleSignature, SignatureVisible } from "./sign-appearance";

const SignatureText = (description: string) => Type.String({ minLength: 1, maxLength: 200, description: `${description} (1 to 200 characters).` });

/** SignatureSettings is a render's (or a template's default) `signature`: which certificate signs, and what it says. */
export const SignatureSettings = Type.Object(
  {
    certificateId: CloneType(Identifier, { description: "The workspace's certificate (cert_…) that signs." }),
    reason: Type.Optional(SignatureText("Why the document is signed")),
    location: Type.Optional(SignatureText("Where it is signed")),
    contactInfo: Type.Optional(SignatureText("How to reach the signer")),
    visible: Type.Optional(SignatureVisible),
  },
  { additionalProperties: false, description: "Sign the PDF (PAdES B-B) with one of the workspace's certificates." },
);
export type SignatureSettings = Static<typeof SignatureSettings>;

/** What a signature says besides the signer; the fields are those of the PDF signature dictionary. */
export interface SignPdfOptions {
  signer: Signer;
  reason?: string;
  location?: string;
  contactInfo?: string;
  /** Where the signature's box is drawn; without it the signature is invisible. */
  visible?: SignatureVisible;
  /** The signing time claimed in the signature (the render's clock). */
  signingTime?: Date;
  /** The owner password of an encrypted PDF: the signature dictionary is written encrypted like the rest. */
  password?: string;
  /** An RFC 3161 timestamp authority: adds a signature timestamp (PAdES B-T). */
  timestampUrl?: string;
}

/** signPdf answers the PDF with one signature appended as an incremental update, its ByteRange covering the whole file. */
export async function signPdf(bytes: Uint8Array, options: SignPdfOptions): Promise<Uint8Array> {
  // Encrypt first, then sign (issue 13): a signature appended to an encrypted file covers the encrypted bytes.
  const pdf = await PDF.load(bytes, options.password === undefined ? {} : { credentials: options.password });
  // One time for the signature dictionary and the visible box.
  const signingTime = options.signingTime ?? new Date();
  if (options.visible) drawBeforeSigning(pdf, options.visible, { ...options, signingTime });
  const { bytes: signed } = await pdf.sign({
    ...(options.visible && { fieldName: VISIBLE_FIELD }),
    signer: options.signer,
    reason: options.reason,
    location: options.location,
    contactInfo: options.contactInfo,
    signingTime,
    subFilter: "ETSI.CAdES.detached",
    digestAlgorithm: "SHA-256",
    ...(options.timestampUrl ? { level: "B-T" as const, timestampAuthority: new HttpTimestampAuthority(options.timestampUrl) } : { level: "B-B" as const }),
  });
  return signed;
}

const VISIBLE_FIELD = "renderd-signature";

/** drawBeforeSigning places the visible box once PDF.sign has made its field and before it writes the revision that
 * the signature covers. @libpdf/core 0.4.2 gives every signature field an empty rectangle and no appearance, and its
 * only step between making the field and hashing the file is its own `save`: the box is drawn there, in that same
 * revision, so the ByteRange covers it (test/pdf/sign.test.ts checks the box is seen and the signature stays valid). */
function drawBeforeSigning(pdf: PDF, visible: SignatureVisible, options: SignPdfOptions & { signingTime: Date }): void {
  const save = pdf.save.bind(pdf);
  pdf.save = (saveOptions) => {
    pdf.save = save;
    placeVisibleSignature(pdf, VISIBLE_FIELD, visible, options.signer.certificate, {
      signingTime: options.signingTime,
      reason: options.reason,
      location: options.location,
    });
    // The box's font is embedded with only the glyphs it shows.
    return save({ ...saveOptions, subsetFonts: true });
  };
}
