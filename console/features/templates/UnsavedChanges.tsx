/** UnsavedChanges: the dialog "Unsaved changes" that a template page with unsaved edits (draft or sample data) shows
 * before the console leaves it — Discard changes goes on, Keep editing stays; a reload or a closed tab gets the
 * browser's own prompt instead. */
import { useRef } from "react";
import { useLeaveGuard } from "../../components/leave-guard";

/** UnsavedChanges guards the page while `dirty`. */
export function UnsavedChanges({ dirty }: { dirty: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const proceed = useRef<(() => void) | null>(null);
  useLeaveGuard(dirty, (_to, go) => {
    proceed.current = go;
    dialog.current?.showModal();
  });
  return (
    <dialog ref={dialog} aria-label="Unsaved changes">
      <article>
        <h2>Unsaved changes</h2>
        <p>This template has changes that are not saved. Leave the page and lose them?</p>
        <footer>
          <button type="button" className="secondary" autoFocus onClick={() => dialog.current?.close()}>
            Keep editing
          </button>{" "}
          <button
            type="button"
            className="contrast"
            onClick={() => {
              dialog.current?.close();
              proceed.current?.();
            }}
          >
            Discard changes
          </button>
        </footer>
      </article>
    </dialog>
  );
}
