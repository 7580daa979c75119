/** TemplatesPage: the list of templates, a new template from a starter (invoice, letter, report) or from a PDF, and
 * the recent conversions of PDFs. */
import { useState } from "react";
import { Link, useLocation } from "wouter";
import { ErrorNotice } from "../../components/ErrorNotice";
import { formatDate } from "../../components/format";
import { PagedTable } from "../../components/PagedTable";
import { usePager } from "../../components/Pager";
import type { Column } from "../../components/Table";
import type { TemplateSummary } from "../../../src/modules/templates/model";
import { useCreateTemplate, useTemplates } from "./api";
import { RecentConversions } from "./RecentConversions";
import { FromPdf } from "./FromPdf";
import { STARTERS } from "./starters";

function NewTemplate() {
  const create = useCreateTemplate();
  const [, navigate] = useLocation();
  const [name, setName] = useState("");
  const [starter, setStarter] = useState<keyof typeof STARTERS>("invoice");
  return (
    <form
      aria-label="New template"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate({ name, ...STARTERS[starter] }, { onSuccess: (t) => navigate(`/templates/${t.id}`) });
      }}
    >
      <h2>New template</h2>
      <div className="grid">
        <label>
          Template name
          <input required maxLength={200} value={name} onChange={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Starter
          <select value={starter} onChange={(e) => setStarter(e.currentTarget.value as keyof typeof STARTERS)}>
            {Object.keys(STARTERS).map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNotice error={create.error} />
      <button type="submit" aria-busy={create.isPending}>
        Create template
      </button>
    </form>
  );
}

const COLUMNS: Column<TemplateSummary>[] = [
  { header: "Name", cell: (t) => <Link href={`/templates/${t.id}`}>{t.name}</Link> },
  { header: "Latest version", cell: (t) => t.latestVersion ?? "draft only" },
  { header: "Updated", cell: (t) => formatDate(t.updatedAt) },
];

/** TemplatesPage lists templates and starts new ones. */
export function TemplatesPage() {
  const pager = usePager();
  const templates = useTemplates(pager.cursor);
  return (
    <section>
      <h1>Templates</h1>
      <PagedTable query={templates} pager={pager} empty="No templates yet: start one from a starter or a PDF below." columns={COLUMNS} rowKey={(t) => t.id} />
      <NewTemplate />
      <FromPdf />
      <RecentConversions />
    </section>
  );
}
