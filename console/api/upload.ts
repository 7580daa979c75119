/** api/upload: an asset upload (spec 4.5) — register the file, then send it to its signed address with progress.
 * Shared by the assets page and the templates page's *New from a PDF*. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { Asset, AssetCreated, AssetKind, MediaType } from "../../src/modules/assets/model";
import { api, ApiFailure, currentWorkspace } from "./client";

/** assetsKey is the cache key under which every asset list is kept. */
export const assetsKey = () => ["assets", currentWorkspace()];

/** KIND_OF_MEDIA_TYPE is the pairing of docs/assets.md; the record makes the checker name a media type added. */
export const KIND_OF_MEDIA_TYPE: Record<MediaType, AssetKind> = {
  "image/png": "image",
  "image/jpeg": "image",
  "image/svg+xml": "svg",
  "font/woff2": "font",
  "font/ttf": "font",
  "font/otf": "font",
  "text/css": "stylesheet",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "workbook",
  "application/pdf": "pdf",
  "text/xml": "pdf",
  "application/xml": "pdf",
};

function put(created: AssetCreated, file: File, onProgress: (fraction: number) => void): Promise<Asset> {
  // XMLHttpRequest, not fetch: only it reports upload progress. content-length is set by the browser itself.
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(created.uploadMethod, created.uploadUrl);
    for (const [name, value] of Object.entries(created.uploadHeaders)) if (name.toLowerCase() !== "content-length") xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      const body = JSON.parse(xhr.responseText || "null");
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body as Asset);
      const error = body?.error ?? { code: "HTTP_" + xhr.status, message: `The upload was answered ${xhr.status}.` };
      reject(new ApiFailure(xhr.status, error.code, error.message, xhr.getResponseHeader("x-request-id"), error.details ?? []));
    };
    xhr.onerror = () => reject(new Error("The upload was interrupted; check the connection and try again."));
    xhr.send(file);
  });
}

/** useUpload registers a file (kind from its media type, sha256 computed here) and sends it to the signed address. */
export function useUpload(onProgress: (fraction: number) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (file: File) => {
      const mediaType = file.type as MediaType;
      const kind = KIND_OF_MEDIA_TYPE[mediaType];
      if (!kind) throw new Error(`Files of type ${file.type || "unknown"} cannot be assets; use PNG, JPEG, SVG, a font, CSS, XLSX, PDF or XML.`);
      onProgress(0);
      const digest = bytesToHex(sha256(new Uint8Array(await file.arrayBuffer())));
      const created = await api<AssetCreated>("/v1/assets", { method: "POST", body: { kind, filename: file.name, mediaType, size: file.size, sha256: digest } });
      return put(created, file, onProgress);
    },
    onSettled: () => client.invalidateQueries({ queryKey: assetsKey() }),
  });
}
