/** UploadStatus: an upload's progress bar, its "Uploaded …" line and its error — the same wherever a file is uploaded. */
import type { useUpload } from "../api/upload";
import { ErrorNotice } from "./ErrorNotice";

/** UploadStatus shows how far `upload` got (`progress` is the fraction its onProgress last reported). */
export function UploadStatus({ upload, progress }: { upload: ReturnType<typeof useUpload>; progress: number | null }) {
  return (
    <>
      {progress !== null && (upload.isPending || upload.isSuccess) ? (
        <label>
          Upload progress
          <progress value={Math.round(progress * 100)} max={100} />
        </label>
      ) : null}
      {upload.isSuccess ? <p role="status">Uploaded {upload.data.filename}.</p> : null}
      <ErrorNotice error={upload.error} />
    </>
  );
}
