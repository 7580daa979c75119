/** TemplatePage: one template's designer — its draft edited in two views of one draft (Design: an outline and a form;
 * JSON: a code editor), its sample data, the live PDF preview of the unsaved draft beside them, and save, test render,
 * publish and the versions. Loaded lazily: it carries CodeMirror and pdf.js. */
import { useEffect, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import { ApiFailure } from "../../api/client";
import { ConfirmButton } from "../../components/Confirm";
import { ErrorNotice } from "../../components/ErrorNotice";
import { formatDate } from "../../components/format";
import { QueryState } from "../../components/QueryState";
import { isConflict, useDeleteTemplate, usePublish, useSaveDraft, useTemplate, useTestRender, type Loaded } from "./api";
import { useConversion } from "./conversions";
import { DesignTab } from "./design/DesignTab";
import { DraftConflict } from "./DraftConflict";
import { useDraftEditor, type DraftEditor } from "./draft/useDraftEditor";
import { JsonEditor, type Problem } from "./JsonEditor";
import { PdfPreview } from "./preview/PdfPreview";
import { usePdfPreview } from "./preview/usePdfPreview";
import { SampleData } from "./SampleData";
import { UnsavedChanges } from "./UnsavedChanges";
import { Versions } from "./Versions";

type Tab = "design" | "json";

/** below answers the problems that lie below `prefix`, their paths made relative to it. */
function below(problems: { path?: string; message: string }[], prefix: string): Problem[] {
  return problems.flatMap((d) => (d.path !== undefined && (d.path === prefix || d.path.startsWith(`${prefix}/`)) ? [{ path: d.path.slice(prefix.length), message: d.message }] : []));
}

/** problemsOf answers an API error's problems that lie below `prefix`. */
function problemsOf(error: unknown, prefix: string): Problem[] {
  return error instanceof ApiFailure ? below(error.details, prefix) : [];
}

function Tabs({ tab, onTab }: { tab: Tab; onTab: (t: Tab) => void }) {
  const tabs: [Tab, string][] = [
    ["design", "Design"],
    ["json", "JSON"],
  ];
  return (
    <div role="tablist" aria-label="Edit the draft" className="tabs">
      {tabs.map(([id, label]) => (
        <button
          key={id}
          type="button"
          role="tab"
          id={`tab-${id}`}
          aria-selected={tab === id}
          aria-controls={`panel-${id}`}
          tabIndex={tab === id ? 0 : -1}
          className={tab === id ? "" : "secondary outline"}
          onClick={() => onTab(id)}
          onKeyDown={(e) => (e.key === "ArrowRight" || e.key === "ArrowLeft") && onTab(id === "design" ? "json" : "design")}
        >
          {label}
        </button>
      ))}
    </div>
  );
}

/** Designer edits the draft; `current` is the template as the page last read it (after a conflict, with the other
 * change), `onReload` starts the editor again from it. */
function Designer({ current, editor, onReload }: { current: Loaded; editor: DraftEditor; onReload: () => void }) {
  const template = current.template;
  const id = template.id;
  const save = useSaveDraft(id);
  const publish = usePublish(id);
  const testRender = useTestRender(id);
  const remove = useDeleteTemplate();
  const [, navigate] = useLocation();
  const [tab, setTab] = useState<Tab>("design");
  const [selected, setSelected] = useState<string | null>(null);
  // A template being deleted has no edits to keep: leaving it asks nothing.
  const [deleting, setDeleting] = useState(false);
  const preview = usePdfPreview(id, editor.previewBody());
  const body = editor.saveBody();

  // A failed save's problems describe the draft as it was then; an edit makes them stale.
  useEffect(() => save.reset(), [editor.draft, editor.sample.text]);

  const problems = [...problemsOf(save.error, ""), ...problemsOf(preview.error, "/draft")];
  const unique = problems.filter((p, i) => problems.findIndex((q) => q.path === p.path && q.message === p.message) === i);
  const draftProblems = unique.filter((p) => !p.path.startsWith("/sampleData"));
  const sampleProblems = below(unique, "/sampleData");
  const invalid = editor.json.error ?? (editor.sample.parsed.ok ? null : `The sample data is not valid JSON: ${editor.sample.parsed.message}`);
  // The draft as saved elsewhere, once the page has read it again after a conflict.
  const theirs = isConflict(save.error) && current.etag !== editor.etag ? current : null;
  const saveMine = () => {
    const overwrite = theirs && editor.overwriteBody(theirs.template.draft);
    if (overwrite) save.mutate({ body: overwrite, ifMatch: null }, { onSuccess: (t) => editor.saved(t) });
  };

  return (
    <>
      <div className="toolbar">
        <button type="button" disabled={!body} aria-busy={save.isPending} onClick={() => body && save.mutate({ body, ifMatch: editor.etag }, { onSuccess: (t) => editor.saved(t) })}>
          Save draft
        </button>
        <button
          type="button"
          className="secondary"
          disabled={!editor.sample.parsed.ok}
          aria-busy={testRender.isPending}
          onClick={() => editor.sample.parsed.ok && testRender.mutate(editor.sample.parsed.value)}
        >
          Test render
        </button>
        <ConfirmButton
          label="Publish"
          className="contrast"
          question={`Publish the saved draft as version ${(template.latestVersion ?? 0) + 1}? Renders without a version will use it.`}
          onConfirm={() => publish.mutate()}
        />
        <ConfirmButton
          label="Delete template"
          question={`Delete ${template.name} and all its versions? Renders already made are kept.`}
          confirmLabel="Delete"
          onConfirm={() => {
            setDeleting(true);
            // Not mutate's own onSuccess: refreshing the templates finds this one gone and unmounts this page first,
            // and a mutate callback of an unmounted component is never called.
            remove.mutateAsync(id).then(
              () => navigate("/templates"),
              () => setDeleting(false),
            );
          }}
        />
        <span className={editor.dirty ? "save-state unsaved" : "save-state"} role="status">
          {editor.dirty ? "Unsaved changes" : "All changes saved"}
        </span>
      </div>
      {invalid ? <p className="notice error">{invalid}</p> : null}
      {isConflict(save.error) ? (
        <DraftConflict theirs={theirs} saving={save.isPending} onLoadTheirs={onReload} onSaveMine={saveMine} />
      ) : (
        <ErrorNotice error={save.error} />
      )}
      <ErrorNotice error={publish.error} />
      <ErrorNotice error={testRender.error} />
      <ErrorNotice error={remove.error} />
      {publish.isSuccess ? <p role="status">Published.</p> : null}
      {testRender.data ? (
        <p role="status">
          Test render of the saved draft queued: <Link href={`/renders/${testRender.data.id}`}>open render {testRender.data.id}</Link>
        </p>
      ) : null}
      <div className="designer">
        <div className="designer-edit">
          <Tabs tab={tab} onTab={setTab} />
          <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
            {tab === "design" ? (
              <DesignTab editor={editor} selected={selected} onSelect={setSelected} problems={draftProblems} />
            ) : (
              <JsonEditor label="Draft JSON" value={editor.json.text} onChange={editor.json.set} problems={draftProblems} />
            )}
          </div>
          <SampleData editor={editor} problems={sampleProblems} />
        </div>
        <PdfPreview state={preview} draftError={invalid} />
      </div>
      <Versions id={id} />
      <UnsavedChanges dirty={editor.dirty && !deleting} />
    </>
  );
}

function Editor({ current, sample, onReload }: { current: Loaded; sample: unknown; onReload: () => void }) {
  const editor = useDraftEditor(current, sample);
  return <Designer current={current} editor={editor} onReload={onReload} />;
}

/** TemplatePage is the lazily loaded page of one template. */
export default function TemplatePage({ id }: { id: string }) {
  const template = useTemplate(id);
  // A template made from a PDF before templates kept sample data opens with the values its conversion found.
  const conversion = useConversion(new URLSearchParams(useSearch()).get("conversion"));
  const converted = conversion.data?.templateId === id ? conversion.data.sampleData : undefined;
  // Each reload ("Load theirs" after a conflict) starts a new editor from the draft as read last.
  const [loads, setLoads] = useState(0);
  return (
    <section>
      <p>
        <Link href="/templates">← Templates</Link>
      </p>
      <QueryState query={template}>
        {({ template: t, etag }) => (
          <>
            <h1>{t.name}</h1>
            <p>
              {t.description ?? "No description."} Latest version: {t.latestVersion ?? "none"}; draft saved {formatDate(t.updatedAt)}.
            </p>
            <ErrorNotice error={conversion.error} />
            {converted ? <p role="note">Made from a PDF: the sample data holds the values the conversion found in it.</p> : null}
            {/* Held back until a conversion's sample data has come, so that the editor starts with it. */}
            {conversion.isLoading ? <p aria-busy="true">Loading the conversion…</p> : <Editor key={`${t.id} ${loads}`} current={{ template: t, etag }} sample={converted} onReload={() => setLoads((n) => n + 1)} />}
          </>
        )}
      </QueryState>
    </section>
  );
}
