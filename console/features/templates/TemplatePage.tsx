/** TemplatePage: one template — its draft in a JSON editor with the API's problems marked in place, a live HTML
 * preview beside it, test render, publish and the versions list. Loaded lazily: it carries CodeMirror. */
import { type RefObject, useEffect, useMemo, useRef, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import type { TemplateDraft, UpdateTemplateBody } from "../../../src/modules/templates/model";
import { ApiFailure } from "../../api/client";
import { ConfirmButton } from "../../components/Confirm";
import { ErrorNotice } from "../../components/ErrorNotice";
import { formatDate } from "../../components/format";
import { QueryState } from "../../components/QueryState";
import { useDeleteTemplate, usePreview, usePublish, useSaveDraft, useTemplate, useTestRender, useVersions } from "./api";
import { useConversion } from "./conversions";
import { JsonEditor, type Problem } from "./JsonEditor";

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

function parse(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

// A record over the draft's fields: the type checker tells when the API adds one.
// sampleData is edited in its own box, not in the draft's JSON, so it is not listed.
const DRAFT_FIELDS: Record<Exclude<keyof TemplateDraft, "sampleData">, true> = {
  content: true,
  components: true,
  dataSchema: true,
  stylesheet: true,
  assetIds: true,
  page: true,
  header: true,
  footer: true,
  pdf: true,
  signature: true,
  destinationIds: true,
};

/** patchOf turns the edited draft (and sample data, when it was edited) into a PATCH body: fields present are sent,
 * fields removed as null. */
function patchOf(edited: Record<string, unknown>, before: TemplateDraft, sampleData: unknown): UpdateTemplateBody {
  const body: Record<string, unknown> = sampleData === undefined ? { ...edited } : { ...edited, sampleData };
  for (const field of Object.keys(DRAFT_FIELDS)) if (field in before && !(field in edited)) body[field] = null;
  return body as UpdateTemplateBody;
}

/** draftText is the draft as the editor shows it: without its sample data, which has a box of its own. */
function draftText(draft: TemplateDraft): string {
  const { sampleData: _, ...rest } = draft;
  return JSON.stringify(rest, null, 2);
}

// An A4 page's width in CSS pixels: the preview lays the page out at that width, as it prints, and scales it down to
// the column, so a layout positioned in points (a template made from a PDF) is seen whole instead of cut off.
const PAGE_WIDTH_PX = 794;

/** usePageScale answers how much a page-wide preview must shrink to fit the element `ref` points at (at most 1). */
function usePageScale(ref: RefObject<HTMLElement | null>): number {
  const [scale, setScale] = useState(1);
  useEffect(() => {
    if (!ref.current) return;
    const observer = new ResizeObserver(([entry]) => setScale(Math.min(1, entry!.contentRect.width / PAGE_WIDTH_PX)));
    observer.observe(ref.current);
    return () => observer.disconnect();
  }, [ref]);
  return scale;
}

function Preview({ id, savedAt, data }: { id: string; savedAt: string | undefined; data: unknown }) {
  const preview = usePreview(id, savedAt, data);
  const frame = useRef<HTMLDivElement>(null);
  const scale = usePageScale(frame);
  return (
    <div className="preview">
      <h2>Preview</h2>
      {preview.isError ? <ErrorNotice error={preview.error} /> : null}
      <div ref={frame} className="preview-frame">
        {preview.data !== undefined ? (
          // sandbox with no permissions: the preview's own HTML runs no script and cannot reach the console.
          <iframe title="Preview" sandbox="" srcDoc={preview.data} style={{ width: PAGE_WIDTH_PX, height: `${100 / scale}%`, transform: `scale(${scale})` }} />
        ) : (
          <p aria-busy="true">Loading preview…</p>
        )}
      </div>
    </div>
  );
}

function Versions({ id }: { id: string }) {
  const versions = useVersions(id);
  return (
    <section>
      <h2>Versions</h2>
      <QueryState query={versions} isEmpty={(p) => p.items.length === 0} empty="Not published yet: renders can use the draft only as test renders.">
        {(page) => (
          <ul>
            {page.items.map((v) => (
              <li key={v.id}>
                Version {v.version}, published {formatDate(v.publishedAt)}
              </li>
            ))}
          </ul>
        )}
      </QueryState>
    </section>
  );
}

function Editor({ id }: { id: string }) {
  const template = useTemplate(id);
  const save = useSaveDraft(id);
  const publish = usePublish(id);
  const testRender = useTestRender(id);
  const remove = useDeleteTemplate();
  const [, navigate] = useLocation();
  const [text, setText] = useState<string | null>(null);
  // A template made from a PDF before templates kept sample data opens with the values its conversion found.
  const conversion = useConversion(new URLSearchParams(useSearch()).get("conversion"));
  const converted = conversion.data?.templateId === id ? conversion.data.sampleData : undefined;
  const sampleData = template.data?.draft.sampleData ?? converted;
  const [edited, setDataText] = useState<string | null>(null);
  const dataText = edited ?? (sampleData === undefined ? "{}" : JSON.stringify(sampleData, null, 2));
  const data = useMemo(() => parse(dataText), [dataText]);
  const problems: Problem[] = save.error instanceof ApiFailure ? save.error.details.map((d) => ({ path: d.path ?? "", message: d.message })) : [];

  return (
    <QueryState query={template}>
      {(t) => {
        const current = text ?? draftText(t.draft);
        const parsed = parse(current);
        return (
          <>
            <h1>{t.name}</h1>
            <p>
              {t.description ?? "No description."} Latest version: {t.latestVersion ?? "none"}; draft saved {formatDate(t.updatedAt)}.
            </p>
            <div className="toolbar">
              <button
                type="button"
                disabled={!parsed.ok || !data.ok}
                aria-busy={save.isPending}
                onClick={() =>
                  parsed.ok &&
                  data.ok &&
                  save.mutate(patchOf(parsed.value as Record<string, unknown>, t.draft, edited === null ? undefined : data.value), {
                    onSuccess: () => {
                      setText(null);
                      setDataText(null);
                    },
                  })
                }
              >
                Save draft
              </button>
              <button type="button" className="secondary" disabled={!data.ok} aria-busy={testRender.isPending} onClick={() => data.ok && testRender.mutate(data.value)}>
                Test render
              </button>
              <ConfirmButton
                label="Publish"
                className="contrast"
                question={`Publish the saved draft as version ${(t.latestVersion ?? 0) + 1}? Renders without a version will use it.`}
                onConfirm={() => publish.mutate()}
              />
              <ConfirmButton
                label="Delete template"
                question={`Delete ${t.name} and all its versions? Renders already made are kept.`}
                confirmLabel="Delete"
                onConfirm={() => remove.mutate(id, { onSuccess: () => navigate("/templates") })}
              />
            </div>
            {!parsed.ok ? <p className="notice error">The draft is not valid JSON: {parsed.message}</p> : null}
            <ErrorNotice error={save.error} />
            <ErrorNotice error={publish.error} />
            <ErrorNotice error={testRender.error} />
            <ErrorNotice error={remove.error} />
            <ErrorNotice error={conversion.error} />
            {converted ? <p role="note">Made from a PDF: the sample data holds the values the conversion found in it.</p> : null}
            {publish.isSuccess ? <p role="status">Published.</p> : null}
            {testRender.data ? (
              <p role="status">
                Test render queued: <Link href={`/renders/${testRender.data.id}`}>open render {testRender.data.id}</Link>
              </p>
            ) : null}
            <div className="editor-grid">
              <div>
                <h2>Draft</h2>
                <JsonEditor key={t.id} label="Draft JSON" value={current} onChange={setText} problems={problems} />
                <label>
                  Sample data (JSON, saved with the draft)
                  <textarea rows={sampleData === undefined ? 4 : 12} value={dataText} onChange={(e) => setDataText(e.currentTarget.value)} aria-invalid={data.ok ? undefined : true} />
                </label>
              </div>
              {/* Held back until a conversion's sample data has come, so that the first preview already shows it. */}
              <Preview id={id} savedAt={conversion.isLoading ? undefined : t.updatedAt} data={data.ok ? data.value : {}} />
            </div>
            <Versions id={id} />
          </>
        );
      }}
    </QueryState>
  );
}

/** TemplatePage is the lazily loaded page of one template. */
export default function TemplatePage({ id }: { id: string }) {
  return (
    <section>
      <p>
        <Link href="/templates">← Templates</Link>
      </p>
      <Editor id={id} />
    </section>
  );
}
