/** ExportButton downloads the workspace's data as one JSON document (GET /v1/export; allowed while suspended,
 * spec 3.4), and shows the API's error if it fails. */
import { useMutation } from "@tanstack/react-query";
import { download } from "../api/client";
import { ErrorNotice } from "./ErrorNotice";

/** ExportButton downloads the workspace export and shows why it failed, if it did. */
export function ExportButton() {
  const exporting = useMutation({ mutationFn: () => download("/v1/export", "workspace-export.json") });
  return (
    <>
      <button type="button" className="secondary export" aria-busy={exporting.isPending} onClick={() => exporting.mutate()}>
        Export workspace data
      </button>
      <ErrorNotice error={exporting.error} />
    </>
  );
}
