/** SignIn: e-mail and password; after it, the user goes back to the page they were on (`?next=`). */
import { useState } from "react";
import { useLocation, useSearch } from "wouter";
import { ApiFailure } from "../../api/client";
import { useSignIn } from "../../api/session";
import { ErrorNotice } from "../../components/ErrorNotice";

/** safeNext keeps only a console path, so that a crafted link cannot send the user elsewhere after sign-in. */
function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

function message(error: unknown): string | null {
  if (!(error instanceof ApiFailure)) return null;
  if (error.status === 429) return "Too many sign-in attempts from this address. Wait a minute, then try again.";
  if (error.status === 401) return "Wrong e-mail or password. Check both and try again.";
  return null;
}

/** SignIn signs the user in and goes on to `?next=`; `expired` says why they are here. */
export function SignIn({ expired }: { expired: boolean }) {
  const signIn = useSignIn();
  const [, navigate] = useLocation();
  const next = safeNext(new URLSearchParams(useSearch()).get("next"));
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const friendly = message(signIn.error);
  return (
    <main className="sign-in">
      <article>
        <h1>Sign in to renderd</h1>
        {expired ? <p className="notice">Your session has ended. Sign in again to go on where you were.</p> : null}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            signIn.mutate({ email, password }, { onSuccess: () => navigate(next, { replace: true }) });
          }}
        >
          <label>
            Email
            <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
          </label>
          <label>
            Password
            <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
          </label>
          {friendly ? (
            <p className="notice error" role="alert">
              {friendly}
            </p>
          ) : (
            <ErrorNotice error={signIn.error} />
          )}
          <button type="submit" aria-busy={signIn.isPending}>
            Sign in
          </button>
        </form>
      </article>
    </main>
  );
}
