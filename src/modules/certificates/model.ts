/** certificates/model: a workspace's signing certificate (issue 13) and its bodies; never the key or the password. */
import { Type, type Static } from "@sinclair/typebox";
import { Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";

/** issue 13: a PKCS#12 file is at most 100 kB. */
export const MAX_PKCS12_BYTES = 100 * 1024;

export const Certificate = Type.Object({
  id: Identifier,
  name: Type.String(),
  subject: Type.String(),
  issuer: Type.String(),
  serialNumber: Type.String({ description: "hex" }),
  notBefore: IsoDateTime,
  notAfter: IsoDateTime,
  sha256Fingerprint: Type.String({ pattern: "^[0-9a-f]{64}$" }),
  createdAt: IsoDateTime,
});
export type Certificate = Static<typeof Certificate>;

export const CreateCertificateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    pkcs12: Type.String({
      minLength: 1,
      // base64 of at most MAX_PKCS12_BYTES bytes; the decoded size is checked again in the service.
      maxLength: Math.ceil(MAX_PKCS12_BYTES / 3) * 4,
      pattern: "^[A-Za-z0-9+/]+={0,2}$",
      errorMessage: "must be a PKCS#12 (.p12/.pfx) file of at most 100 kB, base64-encoded",
    }),
    // A PKCS#12 file may be exported with an empty password.
    password: Type.String({ maxLength: 1024 }),
  },
  { additionalProperties: false },
);
export type CreateCertificateBody = Static<typeof CreateCertificateBody>;

export const CertificateDeleted = Type.Object({ id: Identifier, deleted: Type.Literal(true) });

export const CertificateListQuery = Type.Object({ ...PageQueryFields }, { additionalProperties: false });
