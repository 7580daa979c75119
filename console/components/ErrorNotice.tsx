/** ErrorNotice shows an API error as the server gave it: its message and the request id to quote to an operator. */
import { ApiFailure } from "../api/client";

/** ErrorNotice shows an error's message, details and request id, or nothing. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const failure = error instanceof ApiFailure ? error : null;
  const message = failure?.message ?? (error instanceof Error ? error.message : String(error));
  return (
    <div className="notice error" role="alert">
      <p>{message}</p>
      {failure?.details.length ? (
        <ul>
          {failure.details.map((d, i) => (
            <li key={i}>
              {d.path ? <code>{d.path}</code> : null} {d.message}
            </li>
          ))}
        </ul>
      ) : null}
      {failure?.requestId ? <small>Request id: <code>{failure.requestId}</code></small> : null}
    </div>
  );
}

/** fieldError answers the server's message for one field (a JSON pointer such as `/name`), if it named it. */
export function fieldError(error: unknown, path: string): string | undefined {
  if (!(error instanceof ApiFailure)) return undefined;
  return error.details.find((d) => d.path === path)?.message;
}
