/** TemplatesPage: the list of templates, a new template from one of the API's starters or from a PDF, and the recent
 * conversions of PDFs. */
import { useState } from "react";
import { Link, useLocation } from "wouter";
import { ErrorNotice } from "../../components/ErrorNotice";
import { formatDate } from "../../components/format";
import { PagedTable } from "../../components/PagedTable";
import { usePager } from "../../components/Pager";
import type { Column } from "../../components/Table";
import type { TemplateSummary } from "../../../src/modules/templates/model";
import { useCreateTemplate, useStarters, useTemplates } from "./api";
import { RecentConversions } from "./RecentConversions";
import { FromPdf } from "./FromPdf";
import { StarterPicker, type Choice } from "./StarterPicker";

function NewTemplate() {
  const create = useCreateTemplate();
  const starters = useStarters();
  const [, navigate] = useLocation();
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState<Choice>("invoice");
  const starter = starters.data?.items.find((s) => s.id === chosen);
  return (
    <form
      aria-label="New template"
      onSubmit={(e) => {
        e.preventDefault();
        const body = chosen === "blank" ? { name, content: { type: "container" as const, children: [] } } : { name, starter: chosen };
        create.mutate(body, { onSuccess: (t) => navigate(`/templates/${t.id}`) });
      }}
    >
      <h2>New template</h2>
      <label>
        Template name
        <input required maxLength={200} value={name} onChange={(e) => setName(e.currentTarget.value)} />
      </label>
      {starters.data ? <StarterPicker starters={starters.data.items} chosen={chosen} onChoose={setChosen} /> : <p aria-busy={starters.isLoading}>Loading the starters…</p>}
      <p>{starter ? starter.description : "An empty page: add every node yourself in the designer."}</p>
      <ErrorNotice error={starters.error} />
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
