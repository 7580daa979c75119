/** FromPdf: *New from a PDF* — pick an uploaded PDF or upload one, convert it (docs/conversions.md), follow the
 * conversion until it ends, then open the new draft with the conversion's sampleData as its sample data. */
import { useEffect, useState } from "react";
import { useLocation } from "wouter";
import { useUpload } from "../../api/upload";
import { ErrorNotice } from "../../components/ErrorNotice";
import { UploadStatus } from "../../components/UploadStatus";
import { editorPath, useConversion, usePdfAssets, useStartConversion } from "./conversions";

/** FromPdf is the Templates page's form that makes a template from a PDF asset. */
export function FromPdf() {
  const assets = usePdfAssets();
  const [assetId, setAssetId] = useState("");
  const [progress, setProgress] = useState<number | null>(null);
  const upload = useUpload(setProgress);
  const start = useStartConversion();
  const [conversionId, setConversionId] = useState<string | null>(null);
  const conversion = useConversion(conversionId);
  const [, navigate] = useLocation();
  // XML assets share the kind pdf (docs/decisions.md) but cannot be converted.
  const pdfs = assets.data?.items.filter((a) => a.mediaType === "application/pdf") ?? [];
  const c = conversion.data;
  const converting = c?.status === "queued" || c?.status === "processing";

  useEffect(() => {
    if (c?.status === "succeeded" && c.templateId) navigate(editorPath(c.templateId, c.id));
  }, [c, navigate]);

  return (
    <form
      aria-label="New from a PDF"
      onSubmit={(e) => {
        e.preventDefault();
        start.mutate({ assetId }, { onSuccess: (started) => setConversionId(started.id) });
      }}
    >
      <h2>New from a PDF</h2>
      <p>
        renderd lays a template out as the PDF is, with its dates, amounts, numbers and table rows as data. Text PDFs only: a scan needs OCR first.
      </p>
      <div className="grid">
        <label>
          PDF asset
          <select required value={assetId} onChange={(e) => setAssetId(e.currentTarget.value)} aria-busy={assets.isPending}>
            <option value="">{pdfs.length ? "choose a PDF" : "no PDF uploaded yet"}</option>
            {pdfs.map((a) => (
              <option key={a.id} value={a.id}>
                {a.filename} ({a.id})
              </option>
            ))}
          </select>
        </label>
        <label>
          Or upload a PDF
          <input
            type="file"
            accept="application/pdf"
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              if (file) upload.mutate(file, { onSuccess: (a) => setAssetId(a.id) });
              e.currentTarget.value = "";
            }}
          />
        </label>
      </div>
      <UploadStatus upload={upload} progress={progress} />
      <ErrorNotice error={assets.error} />
      <ErrorNotice error={start.error} />
      <ErrorNotice error={conversion.error} />
      {converting ? (
        <p role="status" aria-busy="true">
          {c?.status === "queued" ? "Conversion queued…" : "Converting the PDF…"}
        </p>
      ) : null}
      {c?.status === "failed" ? (
        <div className="notice error" role="alert">
          <p>The conversion failed: {c.error}</p>
        </div>
      ) : null}
      <button type="submit" disabled={!assetId || upload.isPending || converting} aria-busy={start.isPending}>
        Convert to a template
      </button>
    </form>
  );
}
