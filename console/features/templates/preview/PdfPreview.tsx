/** PdfPreview: the region "PDF preview" — the pages of the PDF the unsaved draft prints with the sample data, drawn
 * from the real render (header, footer, margins, fonts and images as a render prints them), and where the next one is. */
import { useState } from "react";
import { ApiFailure } from "../../../api/client";
import { ErrorNotice } from "../../../components/ErrorNotice";
import { PdfPages } from "../pdf/PdfPages";
import type { PreviewState } from "./usePdfPreview";

function statusLine(state: PreviewState, draftError: string | null): string {
  if (draftError) return "Waiting for a valid draft and sample data: the pages show the last one that printed.";
  switch (state.status) {
    case "idle":
      return "Printing soon…";
    case "printing":
      return "Printing the draft…";
    case "waiting":
      return state.retryAt ? `Previews are test renders, 10 a minute: the next prints at ${state.retryAt.toLocaleTimeString()}.` : "Waiting…";
    case "failed":
      return "The draft did not print: see below. The pages show the last one that did.";
    case "ready":
      return `Printed at ${state.printedAt!.toLocaleTimeString()} with the sample data, as a test render (marked TEST).`;
  }
}

/** PdfPreview shows the live preview's pages and status. */
export function PdfPreview({ state, draftError }: { state: PreviewState; draftError: string | null }) {
  const [drawError, setDrawError] = useState<Error | null>(null);
  // A draft's own problems are shown beside its nodes and fields; only their summary is repeated here.
  const problems = state.error instanceof ApiFailure && state.error.details.length > 0;
  return (
    <section className="pdf-preview" aria-label="PDF preview" aria-busy={state.status === "printing"}>
      <h2>PDF preview</h2>
      <p role="status" className="preview-status">
        {statusLine(state, draftError)}
      </p>
      {state.status === "failed" && problems ? (
        <div className="notice error" role="alert">
          <p>{(state.error as ApiFailure).message} The problems are marked where they are.</p>
        </div>
      ) : state.status === "failed" ? (
        <ErrorNotice error={state.error} />
      ) : null}
      <ErrorNotice error={drawError} />
      {state.pdf || state.status === "failed" ? null : <p aria-busy="true">The first preview is printing…</p>}
      <PdfPages pdf={state.pdf} text pageLabel={(n, count) => `Page ${n} of ${count}`} onError={setDrawError} />
    </section>
  );
}
