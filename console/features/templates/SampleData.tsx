/** SampleData: the template's sample data — the JSON the live preview prints with, saved with the draft by Save draft
 * (the template's `sampleData`) — with a data schema written from it, or it written from the data schema. */
import type { Problem } from "./JsonEditor";
import { JsonEditor } from "./JsonEditor";
import type { DraftEditor } from "./draft/useDraftEditor";
import { generateSample, inferSchema } from "./draft/schema";

/** SampleData edits the sample data; `problems` are the API's, their paths inside the sample data. */
export function SampleData({ editor, problems }: { editor: DraftEditor; problems: Problem[] }) {
  const { draft, sample } = editor;
  return (
    <section className="sample-data" aria-labelledby="sample-data-heading">
      <h2 id="sample-data-heading">Sample data</h2>
      <p className="hint">What the preview prints with; saved with the draft. Real renders never use it.</p>
      <div className="toolbar">
        {draft.dataSchema ? (
          <button type="button" className="secondary" onClick={() => sample.set(JSON.stringify(generateSample(draft.dataSchema), null, 2))}>
            Generate sample data
          </button>
        ) : (
          <button
            type="button"
            className="secondary"
            disabled={!sample.parsed.ok}
            onClick={() => sample.parsed.ok && editor.edit({ ...draft, dataSchema: inferSchema(sample.parsed.value) })}
          >
            Infer schema from sample data
          </button>
        )}
      </div>
      <JsonEditor label="Sample data" value={sample.text} onChange={sample.set} problems={problems} />
    </section>
  );
}
