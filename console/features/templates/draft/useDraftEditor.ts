/** draft/useDraftEditor: the one draft that the Design and JSON tabs both edit (pdfme's shape: one object, many views
 * of it), its undo history, the JSON text as typed, the sample data, whether anything is unsaved, and the ETag of the
 * saved draft the edits are made from. */
import { useMemo, useState } from "react";
import type { TemplateDraft, UpdateTemplateBody } from "../../../../src/modules/templates/model";
import type { PreviewRequest } from "../../../../src/modules/renders/model";
import type { Loaded } from "../api";
import { begin, change, redo, undo, type History } from "./history";
import type { Draft } from "./nodes";
import { patchOf, sameJson, withoutSample } from "./patch";

/** Parsed is JSON text read: its value, or why it is not JSON. */
export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

/** parseJson reads JSON text. */
export function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

// The Design tab can show any object with a content node; the API checks the rest and its problems are shown in place.
function draftProblem(parsed: Parsed): string | null {
  if (!parsed.ok) return `The draft is not valid JSON: ${parsed.message}`;
  const v = parsed.value as { content?: { type?: unknown } } | null;
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "The draft must be a JSON object.";
  if (typeof v.content?.type !== "string") return "The draft needs a content node: an object with a type.";
  return null;
}

/** useDraftEditor holds the draft being edited, starting from the template's saved draft and the ETag naming it (what
 * a save sends as If-Match); `initialSample` is the sample data shown when the template has none of its own (the values
 * a conversion found). */
export function useDraftEditor(start: Loaded, initialSample?: unknown) {
  const savedDraft = start.template.draft;
  const [saved, setSaved] = useState(savedDraft);
  const [etag, setEtag] = useState(start.etag);
  const [history, setHistory] = useState<History<Draft>>(() => begin(withoutSample(savedDraft)));
  // The JSON tab's text while it differs from the draft as written out (being typed, or not a draft yet).
  const [jsonText, setJsonText] = useState<string | null>(null);
  const sampleStart = savedDraft.sampleData ?? initialSample;
  const [sampleText, setSampleText] = useState(sampleStart === undefined ? "{}" : pretty(sampleStart));
  const [sampleEdited, setSampleEdited] = useState(false);

  const draft = history.present;
  const jsonError = jsonText === null ? null : draftProblem(parseJson(jsonText));
  const sample = useMemo(() => parseJson(sampleText), [sampleText]);
  const sampleDirty = sampleEdited && (!sample.ok || !sameJson(sample.value, saved.sampleData));
  const dirty = jsonError !== null || sampleDirty || !sameJson(draft, withoutSample(saved));

  return {
    draft,
    /** edit makes `next` the draft; `key` names the field edited, so that typing in it is one undo step. */
    edit(next: Draft, key?: string) {
      setHistory((h) => change(h, next, key, Date.now()));
      setJsonText(null);
    },
    undo() {
      setHistory(undo);
      setJsonText(null);
    },
    redo() {
      setHistory(redo);
      setJsonText(null);
    },
    canUndo: history.past.length > 0,
    canRedo: history.future.length > 0,
    json: {
      text: jsonText ?? pretty(draft),
      error: jsonError,
      /** set takes the JSON tab's text; once it is a draft, it is the draft. */
      set(text: string) {
        setJsonText(text);
        const parsed = parseJson(text);
        if (draftProblem(parsed) === null) setHistory((h) => change(h, parsed.ok ? (parsed.value as Draft) : h.present, "json", Date.now()));
      },
    },
    sample: {
      text: sampleText,
      parsed: sample,
      set(text: string) {
        setSampleText(text);
        setSampleEdited(true);
      },
    },
    dirty,
    /** etag names the saved draft the edits are made from: the one loaded, then each one saved. */
    etag,
    /** saveBody is what Save draft sends, or null while the JSON or the sample data is not valid. */
    saveBody(): UpdateTemplateBody | null {
      if (jsonError !== null || !sample.ok) return null;
      return patchOf(draft, saved, sampleEdited ? sample.value : undefined);
    },
    /** overwriteBody is what "Save mine anyway" sends over `current`, the draft saved elsewhere meanwhile: the draft
     * and sample data as shown here, whole, so that nothing of the other change stays mixed into them. */
    overwriteBody(current: TemplateDraft): UpdateTemplateBody | null {
      if (jsonError !== null || !sample.ok) return null;
      return patchOf(draft, current, sampleEdited || saved.sampleData !== undefined ? sample.value : null);
    },
    /** saved records the draft the API answered after a save, and its ETag. */
    saved({ template, etag }: Loaded) {
      setSaved(template.draft);
      setEtag(etag);
      setSampleEdited(false);
      setJsonText(null);
    },
    /** previewBody is what the live preview prints: the draft with the sample data, or null while either is not valid. */
    previewBody(): PreviewRequest | null {
      if (jsonError !== null || !sample.ok) return null;
      return { draft: { ...draft, sampleData: sample.value } };
    },
  };
}

/** DraftEditor is what useDraftEditor answers. */
export type DraftEditor = ReturnType<typeof useDraftEditor>;
