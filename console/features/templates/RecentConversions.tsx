/** RecentConversions: the Templates page's list of recent conversions of PDFs into templates (docs/conversions.md). */
import { Link } from "wouter";
import type { ConversionSummary } from "../../../src/modules/template-conversions/model";
import { formatDate } from "../../components/format";
import { PagedTable } from "../../components/PagedTable";
import { usePager } from "../../components/Pager";
import type { Column } from "../../components/Table";
import { editorPath, useConversions, usePdfAssets } from "./conversions";

/** RecentConversions lists the workspace's conversions, newest first, each with its source and its template or error. */
export function RecentConversions() {
  const pager = usePager();
  const conversions = useConversions(pager.cursor);
  const assets = usePdfAssets();
  // A deleted asset, or one beyond the newest hundred, is named by its id.
  const filename = (id: string) => assets.data?.items.find((a) => a.id === id)?.filename ?? id;
  const columns: Column<ConversionSummary>[] = [
    { header: "Status", cell: (c) => c.status },
    { header: "Source", cell: (c) => filename(c.assetId) },
    { header: "Created", cell: (c) => formatDate(c.createdAt) },
    {
      header: "Result",
      cell: (c) => (c.templateId ? <Link href={editorPath(c.templateId, c.id)}>Open template</Link> : (c.error ?? "—")),
    },
  ];
  return (
    <section aria-label="Recent conversions">
      <h2>Recent conversions</h2>
      <PagedTable query={conversions} pager={pager} empty="No conversions yet: make a template from a PDF above." columns={columns} rowKey={(c) => c.id} />
    </section>
  );
}
