/** TemplatesPage: the list of templates, and a new template from a starter (invoice, letter, report). */
import { useState } from "react";
import { Link, useLocation } from "wouter";
import { ErrorNotice } from "../../components/ErrorNotice";
import { formatDate } from "../../components/format";
import { Pager, usePager } from "../../components/Pager";
import { QueryState } from "../../components/QueryState";
import { useCreateTemplate, useTemplates } from "./api";
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

/** TemplatesPage lists templates and starts new ones. */
export function TemplatesPage() {
  const pager = usePager();
  const templates = useTemplates(pager.cursor);
  return (
    <section>
      <h1>Templates</h1>
      <QueryState query={templates} isEmpty={(p) => p.items.length === 0} empty="No templates yet: start one from a starter below.">
        {(page) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Latest version</th>
                  <th>Updated</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((t) => (
                  <tr key={t.id}>
                    <td>
                      <Link href={`/templates/${t.id}`}>{t.name}</Link>
                    </td>
                    <td>{t.latestVersion ?? "draft only"}</td>
                    <td>{formatDate(t.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager pager={pager} nextCursor={page.nextCursor} />
          </div>
        )}
      </QueryState>
      <NewTemplate />
    </section>
  );
}
