/** preview/usePdfPreview: the live preview — the PDF the unsaved draft prints with the sample data, asked for shortly
 * after the last edit. One request at a time: edits made while one prints are sent together once it answers. A
 * preview is a test render, allowed 10 a minute: a draft printed a moment ago (an undo, a move and its move back) is
 * shown again without printing it again, and past the allowance the preview waits the Retry-After the API names,
 * then prints the newest draft. */
import { useEffect, useRef, useState } from "react";
import type { PreviewRequest, Render } from "../../../../src/modules/renders/model";
import { ApiFailure, send } from "../../../api/client";

// Long enough to let a word be typed whole, short enough that the page follows an edit within 1.5 s: an invoice's page
// is drawn ~0.5 s after the last keystroke (bench/designer-preview.ts).
const QUIET_MS = 350;
// The drafts printed last, by their request: enough for a run of undos and redos.
const KEPT = 20;

/** PreviewState is the last PDF printed and where the next one is. */
export interface PreviewState {
  pdf?: Uint8Array;
  /** printing: a request is out; waiting: the draft cannot be sent (its JSON is not valid) or a limit is waited out. */
  status: "idle" | "printing" | "ready" | "failed" | "waiting";
  /** Why the last preview did not print: an ApiFailure (with the draft's problems), or a render that failed. */
  error?: unknown;
  printedAt?: Date;
  /** When a preview refused by the test allowance is asked for again. */
  retryAt?: Date;
}

async function printPreview(templateId: string, body: PreviewRequest): Promise<Uint8Array> {
  const res = await send(`/v1/templates/${templateId}/preview`, { method: "POST", body });
  if (res.headers.get("content-type") === "application/pdf") return new Uint8Array(await res.arrayBuffer());
  // A preview that failed, or did not end within its wait, is answered as its render.
  const render = (await res.json()) as Render;
  throw new Error(render.error ? `The preview failed: ${render.error.message}` : `The preview is still ${render.status}; it will show when the next edit prints.`);
}

/** usePdfPreview keeps the preview of `body` (null while the draft cannot be sent) up to date. */
export function usePdfPreview(templateId: string, body: PreviewRequest | null): PreviewState {
  const [state, setState] = useState<PreviewState>({ status: "idle" });
  const wanted = body === null ? null : JSON.stringify(body);
  const latest = useRef(wanted);
  latest.current = wanted;
  const printing = useRef(false);
  const printed = useRef<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const alive = useRef(true);
  const kept = useRef(new Map<string, Uint8Array>());

  const schedule = (ms: number) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void print(), ms);
  };

  const print = async () => {
    const asked = latest.current;
    if (asked === null || printing.current || asked === printed.current) return;
    const known = kept.current.get(asked);
    if (known) {
      printed.current = asked;
      return setState({ pdf: known, status: "ready", printedAt: new Date() });
    }
    printing.current = true;
    setState((s) => ({ ...s, status: "printing", retryAt: undefined }));
    try {
      const pdf = await printPreview(templateId, JSON.parse(asked) as PreviewRequest);
      printed.current = asked;
      kept.current.delete(asked);
      kept.current.set(asked, pdf);
      if (kept.current.size > KEPT) kept.current.delete(kept.current.keys().next().value!);
      if (alive.current) setState({ pdf, status: "ready", printedAt: new Date() });
    } catch (error) {
      const limited = error instanceof ApiFailure && error.code === "RATE_LIMITED";
      if (limited) {
        const seconds = error.retryAfter ?? 5;
        if (alive.current) setState((s) => ({ ...s, status: "waiting", error, retryAt: new Date(Date.now() + seconds * 1000) }));
        printing.current = false;
        return schedule(seconds * 1000);
      }
      // The same draft would fail the same way: it is asked again only once it changes.
      printed.current = asked;
      if (alive.current) setState((s) => ({ ...s, status: "failed", error }));
    } finally {
      printing.current = false;
    }
    if (latest.current !== printed.current) schedule(0);
  };

  useEffect(() => {
    if (wanted === null) setState((s) => ({ ...s, status: "waiting", error: undefined }));
    else schedule(QUIET_MS);
    // print reads the newest body through refs; the timer is set again whenever the body changes.
  }, [wanted, templateId]);

  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
      clearTimeout(timer.current);
    };
  }, []);

  return state;
}
