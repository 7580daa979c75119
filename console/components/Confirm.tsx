/** ConfirmButton asks in a dialog before it runs a destructive or important action. */
import { useRef, type ReactNode } from "react";

interface Props {
  /** label names the action in full ("Revoke ci"): the button's accessible name and the dialog's. */
  label: string;
  /** text is what the button shows when shorter than the label ("Revoke", in a row that names the key already). */
  text?: string;
  /** question is what the dialog asks, in full words. */
  question: ReactNode;
  confirmLabel?: string;
  onConfirm: () => void;
  disabled?: boolean;
  className?: string;
}

/** ConfirmButton runs onConfirm only after the user confirms in a dialog. */
export function ConfirmButton({ label, text, question, confirmLabel, onConfirm, disabled, className }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button type="button" className={className ?? "secondary"} disabled={disabled} aria-label={text ? label : undefined} onClick={() => dialog.current?.showModal()}>
        {text ?? label}
      </button>
      <dialog ref={dialog} aria-label={label}>
        <article>
          <p>{question}</p>
          <footer>
            <button type="button" className="secondary" onClick={() => dialog.current?.close()}>
              Cancel
            </button>{" "}
            <button
              type="button"
              onClick={() => {
                dialog.current?.close();
                onConfirm();
              }}
            >
              {confirmLabel ?? label}
            </button>
          </footer>
        </article>
      </dialog>
    </>
  );
}
