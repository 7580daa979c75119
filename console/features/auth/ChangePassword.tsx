/** ChangePassword: the signed-in user's own password (POST /v1/auth/password). */
import { useState } from "react";
import { useChangePassword } from "../../api/session";
import { ErrorNotice, fieldError } from "../../components/ErrorNotice";

/** ChangePassword changes the signed-in user's password. */
export function ChangePassword() {
  const change = useChangePassword();
  const [currentPassword, setCurrent] = useState("");
  const [newPassword, setNew] = useState("");
  const currentError = fieldError(change.error, "/currentPassword");
  const newError = fieldError(change.error, "/newPassword");
  return (
    <section>
      <h1>Change password</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          change.mutate({ currentPassword, newPassword }, { onSuccess: () => (setCurrent(""), setNew("")) });
        }}
      >
        <label>
          Current password
          <input type="password" autoComplete="current-password" required value={currentPassword} aria-invalid={currentError ? true : undefined} onChange={(e) => setCurrent(e.currentTarget.value)} />
          {currentError ? <small>{currentError}</small> : null}
        </label>
        <label>
          New password
          <input type="password" autoComplete="new-password" required minLength={8} value={newPassword} aria-invalid={newError ? true : undefined} onChange={(e) => setNew(e.currentTarget.value)} />
          {newError ? <small>{newError}</small> : <small>At least 8 characters.</small>}
        </label>
        <ErrorNotice error={change.error} />
        {change.isSuccess ? <p role="status">Your password has been changed.</p> : null}
        <button type="submit" aria-busy={change.isPending}>
          Change password
        </button>
      </form>
    </section>
  );
}
