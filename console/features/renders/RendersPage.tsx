/** RendersPage: renders with status and test filters (refreshing while any is on its way), and one render's page
 * with its error, cancel and the PDF's download link. */
import { useState } from "react";
import { Link } from "wouter";
import type { Render, RenderListQuery } from "../../../src/modules/renders/model";
import { ConfirmButton } from "../../components/Confirm";
import { ErrorNotice } from "../../components/ErrorNotice";
import { formatBytes, formatDate } from "../../components/format";
import { PagedTable } from "../../components/PagedTable";
import { usePager } from "../../components/Pager";
import { QueryState } from "../../components/QueryState";
import type { Column } from "../../components/Table";
import { pageImage, useCancelRender, useRender, useRenders } from "./api";

// A record over the schema's status union: the type checker tells when a status is added to the API.
const STATUSES: Record<Render["status"], true> = { queued: true, processing: true, succeeded: true, failed: true, cancelled: true };

// Drawn at twice the shown width, for sharp thumbnails on high-density screens.
const THUMBNAIL = 48;
const PAGE_SHOWN = 240;
const PAGES_SHOWN = 12;

function Thumbnail({ render }: { render: Render }) {
  const src = pageImage(render, 1, THUMBNAIL * 2);
  return src ? <img className="thumbnail" src={src} width={THUMBNAIL} alt={`First page of ${render.filename}`} loading="lazy" /> : null;
}

const COLUMNS: Column<Render>[] = [
  { header: "Page 1", cell: (r) => <Thumbnail render={r} />, className: "thumbnail-cell" },
  { header: "Render", cell: (r) => <Link href={`/renders/${r.id}`}>{r.id}</Link> },
  { header: "Status", cell: (r) => <span className={`status ${r.status}`}>{r.status}</span> },
  { header: "Test", cell: (r) => (r.test ? "test" : "") },
  { header: "File", cell: (r) => r.filename },
  { header: "Created", cell: (r) => formatDate(r.createdAt) },
];

/** RendersPage lists renders with filters. */
export function RendersPage() {
  const pager = usePager();
  const [status, setStatus] = useState<RenderListQuery["status"]>();
  const [test, setTest] = useState<RenderListQuery["test"]>();
  const renders = useRenders({ status, test, cursor: pager.cursor });
  return (
    <section>
      <h1>Renders</h1>
      <div className="grid filters">
        <label>
          Status
          <select value={status ?? ""} onChange={(e) => (pager.reset(), setStatus((e.currentTarget.value || undefined) as RenderListQuery["status"]))}>
            <option value="">any</option>
            {Object.keys(STATUSES).map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Test renders
          <select value={test ?? ""} onChange={(e) => (pager.reset(), setTest((e.currentTarget.value || undefined) as RenderListQuery["test"]))}>
            <option value="">both</option>
            <option value="true">only test renders</option>
            <option value="false">no test renders</option>
          </select>
        </label>
      </div>
      <PagedTable
        query={renders}
        pager={pager}
        empty="No renders match. Renders made through the API or a template's Test render appear here."
        columns={COLUMNS}
        rowKey={(r) => r.id}
      />
    </section>
  );
}

/** RenderPage shows one render: status, error, cancel, download. */
export function RenderPage({ id }: { id: string }) {
  const render = useRender(id);
  const cancel = useCancelRender();
  return (
    <section>
      <p>
        <Link href="/renders">← Renders</Link>
      </p>
      <h1>Render {id}</h1>
      <QueryState query={render}>
        {(r) => (
          <>
            <dl className="facts">
              <dt>Status</dt>
              <dd>
                <span className={`status ${r.status}`}>{r.status}</span>
                {r.test ? " (test render)" : ""}
              </dd>
              <dt>Template</dt>
              <dd>{r.templateId ? <Link href={`/templates/${r.templateId}`}>{r.templateId}</Link> : "—"} {r.templateVersion ? `version ${r.templateVersion}` : r.templateId ? "draft" : ""}</dd>
              <dt>Created</dt>
              <dd>{formatDate(r.createdAt)}</dd>
              <dt>Finished</dt>
              <dd>{formatDate(r.finishedAt)}</dd>
              {r.result ? (
                <>
                  <dt>Result</dt>
                  <dd>
                    {r.result.pages} page(s), {formatBytes(r.result.bytes)}
                  </dd>
                </>
              ) : null}
            </dl>
            {r.error ? (
              <div className="notice error" role="alert">
                <p>
                  <code>{r.error.code}</code> {r.error.message}
                </p>
              </div>
            ) : null}
            {r.result ? (
              <p>
                <a href={r.result.downloadUrl} download={r.filename} role="button">
                  Download PDF
                </a>{" "}
                <small>The link works until {formatDate(r.result.expiresAt)}.</small>
              </p>
            ) : null}
            {r.result ? <Pages render={r} /> : null}
            {r.status === "queued" || r.status === "processing" ? (
              <ConfirmButton label="Cancel render" question="Cancel this render? It will not be printed." confirmLabel="Cancel render" onConfirm={() => cancel.mutate(r.id)} />
            ) : null}
            <ErrorNotice error={cancel.error} />
          </>
        )}
      </QueryState>
    </section>
  );
}

/** Pages shows a succeeded render's pages as images drawn from its PDF, each opening larger in a new tab. */
function Pages({ render }: { render: Render }) {
  const count = Math.min(render.result?.pages ?? 0, PAGES_SHOWN);
  return (
    <section aria-label="Pages">
      <h2>Pages</h2>
      <div className="pages">
        {Array.from({ length: count }, (_, i) => (
          <a key={i} href={pageImage(render, i + 1, 1200)!} target="_blank" rel="noreferrer">
            <img src={pageImage(render, i + 1, PAGE_SHOWN * 2)!} width={PAGE_SHOWN} alt={`Page ${i + 1}`} loading="lazy" />
          </a>
        ))}
      </div>
      {(render.result?.pages ?? 0) > count ? <small>The first {count} of {render.result!.pages} pages; download the PDF for the rest.</small> : null}
    </section>
  );
}
