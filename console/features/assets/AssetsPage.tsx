/** AssetsPage: assets by kind, upload with a progress bar through the signed upload address, delete. */
import { useState } from "react";
import type { Asset, AssetKind } from "../../../src/modules/assets/model";
import { ConfirmButton } from "../../components/Confirm";
import { ErrorNotice } from "../../components/ErrorNotice";
import { formatBytes, formatDate } from "../../components/format";
import { PagedTable } from "../../components/PagedTable";
import { usePager } from "../../components/Pager";
import type { Column } from "../../components/Table";
import { UploadStatus } from "../../components/UploadStatus";
import { KIND_OF_MEDIA_TYPE, useUpload } from "../../api/upload";
import { useAssets, useDeleteAsset } from "./api";
import { PdfOperations } from "./PdfOperations";

const KINDS = [...new Set(Object.values(KIND_OF_MEDIA_TYPE))];

function Upload() {
  const [progress, setProgress] = useState<number | null>(null);
  const upload = useUpload(setProgress);
  return (
    <form aria-label="Upload asset" onSubmit={(e) => e.preventDefault()}>
      <h2>Upload</h2>
      <label>
        File to upload
        <input
          type="file"
          accept={Object.keys(KIND_OF_MEDIA_TYPE).join(",")}
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (file) upload.mutate(file);
            e.currentTarget.value = "";
          }}
        />
      </label>
      <UploadStatus upload={upload} progress={progress} />
    </form>
  );
}

/** AssetsPage lists assets by kind, uploads and deletes them. */
export function AssetsPage() {
  const pager = usePager();
  const [kind, setKind] = useState<AssetKind>();
  const assets = useAssets(kind, pager.cursor);
  const remove = useDeleteAsset();
  const [operating, setOperating] = useState<Asset | null>(null);
  const columns: Column<Asset>[] = [
    { header: "File", cell: (a) => a.filename },
    { header: "Kind", cell: (a) => a.kind },
    { header: "Size", cell: (a) => formatBytes(a.size) },
    { header: "Id", cell: (a) => <code>{a.id}</code> },
    { header: "Uploaded", cell: (a) => formatDate(a.createdAt) },
    {
      header: "Actions",
      cell: (a) => (
        <>
          {a.mediaType === "application/pdf" ? (
            <button type="button" className="secondary" onClick={() => setOperating(a)}>
              Operations
            </button>
          ) : null}
          <ConfirmButton label={`Delete ${a.filename}`} confirmLabel="Delete" question={`Delete ${a.filename}? Templates that use it will fail to publish.`} onConfirm={() => remove.mutate(a.id)} />
        </>
      ),
    },
  ];
  return (
    <section>
      <h1>Assets</h1>
      <p>Images, fonts, stylesheets, workbooks and PDFs that templates and reports use.</p>
      <label className="filters">
        Kind
        <select value={kind ?? ""} onChange={(e) => (pager.reset(), setKind((e.currentTarget.value || undefined) as AssetKind | undefined))}>
          <option value="">all kinds</option>
          {KINDS.map((k) => (
            <option key={k}>{k}</option>
          ))}
        </select>
      </label>
      <ErrorNotice error={remove.error} />
      <PagedTable query={assets} pager={pager} empty="No assets yet: upload one below." columns={columns} rowKey={(a) => a.id} />
      {operating ? <PdfOperations key={operating.id} asset={operating} /> : null}
      <Upload />
    </section>
  );
}
