/** renders/page-address: the signed address of a render's page image (issue 30) — `result.pageImageUrl` and the images of
 * its `output` — on the render's result token, so that a result address serves its PDF and that PDF's pages alike. */
import type { ImageOutput } from "../../render/image-output";
import { addressUrl } from "../assets/signing";

/** pageAddress answers a render's page-image address signed with its result token: `{n}` in place of the page when
 * `page` is left out (pageImageUrl), the query's format and size appended. */
export function pageAddress(publicUrl: string, id: string, token: string, page?: number, output?: Pick<ImageOutput, "format" | "dpi">): string {
  const base = addressUrl(publicUrl, "result", id, token).replace("?token=", `/pages/${page ?? "{n}"}?token=`);
  return output ? `${base}&format=${output.format}&dpi=${output.dpi}` : base;
}
