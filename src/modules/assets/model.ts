/** assets/model: the spec 2.6 Asset, AssetCreated and AssetDetail, the 4.5 bodies and which media types each kind takes. */
import { Type, type Static } from "@sinclair/typebox";
import { Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";
import { literalUnion } from "../../lib/literals";

export const ASSET_KINDS = ["image", "svg", "font", "stylesheet", "workbook", "pdf"] as const;
export const AssetKind = literalUnion(ASSET_KINDS);
export type AssetKind = Static<typeof AssetKind>;

export const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** XML_MEDIA_TYPES are an e-invoice's XML (Factur-X/ZUGFeRD), embedded into PDFs (`pdf.embeddedFiles`). They are not in
 * spec 2.6's media type enum: docs/decisions.md "XML assets" says why they are added, under the kind `pdf`. */
export const XML_MEDIA_TYPES = ["text/xml", "application/xml"] as const;

export const MEDIA_TYPES = ["image/png", "image/jpeg", "image/svg+xml", "font/woff2", "font/ttf", "font/otf", "text/css", XLSX, "application/pdf", ...XML_MEDIA_TYPES] as const;
export const MediaType = literalUnion(MEDIA_TYPES);
export type MediaType = Static<typeof MediaType>;

/** MEDIA_TYPES_OF_KIND is which media types go with which kind (spec 2.6 leaves it open; docs/assets.md). */
export const MEDIA_TYPES_OF_KIND: Readonly<Record<AssetKind, readonly MediaType[]>> = {
  image: ["image/png", "image/jpeg"],
  svg: ["image/svg+xml"],
  font: ["font/woff2", "font/ttf", "font/otf"],
  stylesheet: ["text/css"],
  workbook: [XLSX],
  pdf: ["application/pdf", ...XML_MEDIA_TYPES],
};

/** MAX_ASSET_BYTES is spec 8.4's asset size limit. */
export const MAX_ASSET_BYTES = 50_000_000;

const fields = {
  kind: AssetKind,
  filename: Type.String({ minLength: 1, maxLength: 255 }),
  mediaType: MediaType,
  size: Type.Integer({ minimum: 1, maximum: MAX_ASSET_BYTES }),
  sha256: Type.String({ pattern: "^[a-f0-9]{64}$", errorMessage: "must be 64 lower-case hexadecimal digits" }),
};

export const Asset = Type.Object({ id: Identifier, ...fields, createdAt: IsoDateTime });
export type Asset = Static<typeof Asset>;

export const AssetCreated = Type.Composite([
  Asset,
  Type.Object({
    uploadMethod: Type.Literal("PUT"),
    uploadUrl: Type.String({ minLength: 1 }),
    uploadHeaders: Type.Record(Type.String(), Type.String()),
    uploadExpiresAt: IsoDateTime,
  }),
]);
export type AssetCreated = Static<typeof AssetCreated>;

export const AssetDetail = Type.Composite([Asset, Type.Object({ downloadUrl: Type.String({ minLength: 1 }), expiresAt: IsoDateTime })]);
export type AssetDetail = Static<typeof AssetDetail>;

/** RegisterAssetBody is the POST /v1/assets body: all five fields required, nothing else (spec 4.5). */
export const RegisterAssetBody = Type.Object(fields, { additionalProperties: false });
export type RegisterAssetBody = Static<typeof RegisterAssetBody>;

export const AssetListQuery = Type.Object({ ...PageQueryFields, kind: Type.Optional(AssetKind) }, { additionalProperties: false });
export type AssetListQuery = Static<typeof AssetListQuery>;

export const AssetDeleted = Type.Object({ id: Identifier, deleted: Type.Literal(true) });
export type AssetDeleted = Static<typeof AssetDeleted>;
