/** renders/page-images: `GET /v1/renders/{id}/pages/{n}` and its signed twin `GET /results/{id}/pages/{n}` (issue 30;
 * docs/pdf.md "Page images") — page n of a succeeded render's stored PDF as an image, drawn once and kept — and the
 * addresses a render's result lists: `pageImageUrl` and the images of its `output`. */
import { Type } from "@sinclair/typebox";
import { ApiError } from "../../errors";
import { documented, Identifier } from "../../http/schemas";
import { literalUnion } from "../../lib/literals";
import { IMAGE_DPI, IMAGE_FORMATS, IMAGE_WIDTH, MEDIA_TYPE_OF_FORMAT, RasterError, type ImageFormat, type ImageSize } from "../../pdf/rasterize";
import { pageImage } from "../../render/page-images";
import { checkAddress } from "../assets/signing";
import type { RenderDeps } from "./service";

const closed = { additionalProperties: false } as const;
const Whole = (what: string, bounds: { minimum: number; maximum: number }, description: string) =>
  documented(Type.String({ pattern: "^[0-9]{1,7}$", errorMessage: `must be a whole number of ${what} from ${bounds.minimum} to ${bounds.maximum}` }), { type: "integer", ...bounds, description });

const imageFields = {
  format: Type.Optional(literalUnion(IMAGE_FORMATS, { description: "png (default), jpeg or webp." })),
  width: Type.Optional(Whole("pixels", IMAGE_WIDTH, `The image's width in pixels, ${IMAGE_WIDTH.minimum} to ${IMAGE_WIDTH.maximum} (default ${IMAGE_WIDTH.default}); its height keeps the page's proportions.`)),
  dpi: Type.Optional(Whole("dots per inch", IMAGE_DPI, `Pixels per inch of the page, ${IMAGE_DPI.minimum} to ${IMAGE_DPI.maximum}, instead of a width.`)),
};

/** PageImageQuery is how the page is drawn: format and a width or a dpi. */
export const PageImageQuery = Type.Object(imageFields, closed);
/** PageImageAddressQuery is the signed address's query: the same, and its token. */
export const PageImageAddressQuery = Type.Object({ ...imageFields, token: Type.Optional(Type.String()) }, closed);

export const PageParams = Type.Object(
  { id: Identifier, n: documented(Type.String({ pattern: "^[1-9][0-9]{0,5}$", errorMessage: "must be a page number from 1" }), { type: "integer", minimum: 1 }) },
  closed,
);

type ImageQuery = { format?: ImageFormat; width?: string; dpi?: string };

function badQuery(path: string, message: string): ApiError {
  return new ApiError("BAD_REQUEST", `The query string is not valid: ${path.slice(1)} ${message}.`, { details: [{ path, message }] });
}

/** imageAsk reads format and size from the query; a width or dpi out of its bounds, or both, is 400 naming it. */
function imageAsk(query: ImageQuery): { format: ImageFormat; size: ImageSize } {
  const format = query.format ?? "png";
  if (query.width !== undefined && query.dpi !== undefined) throw badQuery("/dpi", "cannot be given with width: ask for a width or a dpi");
  const within = (name: "width" | "dpi", bounds: { minimum: number; maximum: number }) => {
    const value = Number(query[name]);
    if (value < bounds.minimum || value > bounds.maximum) throw badQuery(`/${name}`, `must be from ${bounds.minimum} to ${bounds.maximum}`);
    return value;
  };
  if (query.dpi !== undefined) return { format, size: { dpi: within("dpi", IMAGE_DPI) } };
  return { format, size: { width: query.width === undefined ? IMAGE_WIDTH.default : within("width", IMAGE_WIDTH) } };
}

/** renderPageImage answers page n of a succeeded render of the workspace (null: any workspace, for the signed address)
 * as an image: 404 for no such render or page, 400 for a bad query, 409 for a PDF only its user password opens. */
export async function renderPageImage(deps: RenderDeps, workspaceId: string | null, id: string, n: string, query: ImageQuery): Promise<Response> {
  const ask = imageAsk(query);
  const page = Number(n);
  const r = await deps.store.get<{ output_sha256: string | null; pages: number | null; filename: string }>(
    `SELECT output_sha256, pages, filename FROM renders WHERE id = $id AND status = 'succeeded' AND kind = 'render' ${workspaceId === null ? "" : "AND workspace_id = $ws"}`,
    workspaceId === null ? { id } : { id, ws: workspaceId },
  );
  if (!r?.output_sha256) throw new ApiError("NOT_FOUND", `Render ${id} was not found, or has not succeeded.`);
  if (page > (r.pages ?? 0)) throw new ApiError("NOT_FOUND", `Render ${id} has ${r.pages} page${r.pages === 1 ? "" : "s"}; there is no page ${page}.`);
  let image: { sha256: string; bytes: number } | null;
  try {
    image = await pageImage(deps, r.output_sha256, page, ask);
  } catch (e) {
    if (!(e instanceof RasterError)) throw e;
    if (e.reason === "too-large") throw badQuery("width" in ask.size ? "/width" : "/dpi", e.message.replace(/\.$/, ""));
    if (e.reason === "encrypted")
      throw new ApiError("CONFLICT", `Render ${id}'s PDF opens only with its user password, which renderd does not keep: ask for images when the render is created (output), or render it without pdf.password.user.`);
    throw new ApiError("NOT_FOUND", `Render ${id}'s page ${page} cannot be drawn: ${e.message}`);
  }
  if (!image) throw new ApiError("NOT_FOUND", `Render ${id} has no PDF any more.`);
  const name = `${r.filename.replace(/\.pdf$/i, "")}-page-${page}.${ask.format === "jpeg" ? "jpg" : ask.format}`;
  return new Response(deps.files.open("outputs", image.sha256).body(), {
    headers: {
      "content-type": MEDIA_TYPE_OF_FORMAT[ask.format],
      etag: `"${image.sha256}"`,
      // The same address always answers the same image: a browser may keep it while the address is valid.
      "cache-control": "private, max-age=3600",
      "content-disposition": `inline; filename="${name.replace(/[^\x20-\x7e]|["\\%]/g, "_")}"`,
      "x-content-type-options": "nosniff",
    },
  });
}

/** openPageImage checks a result address (the token of the render's downloadUrl) and answers the page's image. */
export function openPageImage(deps: RenderDeps, id: string, n: string, query: ImageQuery & { token?: string }): Promise<Response> {
  checkAddress(deps.config.secretKey, "result", id, query.token, deps.clock.now());
  return renderPageImage(deps, null, id, n, query);
}
