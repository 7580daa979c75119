/** SecretOnce shows a secret the server answers only once, read-only, with a copy button and the warning. */
import { useState } from "react";

/** SecretOnce shows a once-only secret until the user is done with it. */
export function SecretOnce({ secret, label = "Secret", onDone }: { secret: string; label?: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <article className="secret" aria-label="New secret">
      <label>
        {label}
        <input readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <p className="warning">Copy it now: it will not be shown again.</p>
      <button
        type="button"
        onClick={async () => {
          await navigator.clipboard?.writeText(secret).catch(() => undefined);
          setCopied(true);
        }}
      >
        {copied ? "Copied" : "Copy"}
      </button>{" "}
      <button type="button" className="secondary" onClick={onDone}>
        Done
      </button>
    </article>
  );
}
