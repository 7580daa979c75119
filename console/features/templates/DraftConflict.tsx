/** DraftConflict: what the designer shows when a save finds the draft changed elsewhere since it was loaded (409
 * CONFLICT on If-Match): the edits stay in the editor, and the user chooses whose draft goes on. */
import { formatTime } from "../../components/format";
import type { Loaded } from "./api";

/** DraftConflict shows when the draft was changed (once `theirs`, the draft as it is now, has been read again) and the
 * two ways on: take theirs, dropping the edits, or save the edits over theirs. */
export function DraftConflict({ theirs, saving, onLoadTheirs, onSaveMine }: { theirs: Loaded | null; saving: boolean; onLoadTheirs: () => void; onSaveMine: () => void }) {
  return (
    <div className="banner" role="alert" aria-label="Draft changed elsewhere">
      <p>
        <strong>This draft was changed elsewhere{theirs ? ` at ${formatTime(theirs.template.updatedAt)}` : ""}, after you opened it.</strong> Nothing was
        saved, and your edits are still here. Load theirs to drop your edits and go on from the draft as it is now, or save
        yours over it.
      </p>
      <div className="toolbar">
        <button type="button" disabled={!theirs || saving} onClick={onLoadTheirs}>
          Load theirs
        </button>
        <button type="button" className="secondary" disabled={!theirs || saving} aria-busy={saving} onClick={onSaveMine}>
          Save mine anyway
        </button>
      </div>
    </div>
  );
}
