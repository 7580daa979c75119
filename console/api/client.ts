/** api/client: the console's one way to call the public JSON API — the session cookie, the chosen workspace
 * (`x-workspace-id`), the error envelope with its request id, and session expiry. */
import type { Static } from "@sinclair/typebox";
import type { ErrorEnvelope, Page as PageSchema } from "../../src/http/schemas";

type Detail = NonNullable<ErrorEnvelope["error"]["details"]>[number];

/** ApiFailure is an API error as the console shows it: the server's message, code, details and request id. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: Detail[] = [],
    /** Seconds to wait before asking again, from a 429's Retry-After. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

const WORKSPACE_KEY = "renderd.workspace";
let workspaceId: string | null = sessionStorage.getItem(WORKSPACE_KEY);
let onExpired: () => void = () => {};

/** setWorkspace chooses the workspace every later call acts on (kept for this tab only). */
export function setWorkspace(id: string | null): void {
  workspaceId = id;
  if (id) sessionStorage.setItem(WORKSPACE_KEY, id);
  else sessionStorage.removeItem(WORKSPACE_KEY);
}

/** currentWorkspace answers the workspace chosen with setWorkspace, if any. */
export function currentWorkspace(): string | null {
  return workspaceId;
}

/** onSessionExpired registers what happens when the API answers 401 to a signed-in call. */
export function onSessionExpired(handler: () => void): void {
  onExpired = handler;
}

async function failureOf(response: Response): Promise<ApiFailure> {
  const requestId = response.headers.get("x-request-id");
  const envelope = (await response.json().catch(() => null)) as ErrorEnvelope | null;
  const error = envelope?.error;
  if (!error) return new ApiFailure(response.status, "HTTP_" + response.status, `The server answered ${response.status} ${response.statusText}.`, requestId);
  const retryAfter = Number(response.headers.get("retry-after")) || undefined;
  return new ApiFailure(response.status, error.code, error.message, requestId, error.details ?? [], retryAfter);
}

/** CallInit is what a call may carry beyond its path: the method, a JSON body, headers of its own (If-Match), and
 * whether a 401 ends the session (`expiry: false` for the calls about the session itself). */
export type CallInit = { method?: string; body?: unknown; headers?: Record<string, string>; expiry?: boolean };

/** send makes one API call and answers the raw response, throwing ApiFailure for any error status. */
export async function send(path: string, init: CallInit = {}): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers, accept: "application/json" };
  if (workspaceId) headers["x-workspace-id"] = workspaceId;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method: init.method ?? "GET",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    credentials: "same-origin",
  });
  if (response.ok) return response;
  const failure = await failureOf(response);
  if (failure.status === 401 && init.expiry !== false) onExpired();
  throw failure;
}

/** api makes one API call and answers its JSON body (nothing for 204). */
export async function api<T>(path: string, init: CallInit = {}): Promise<T> {
  const response = await send(path, init);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** download fetches a file from the API (with the workspace header a plain link cannot send) and saves it. */
export async function download(path: string, fallbackName: string): Promise<void> {
  const response = await send(path);
  const disposition = response.headers.get("content-disposition") ?? "";
  const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** query builds a query string from the defined, non-empty values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") search.set(k, String(v));
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** Page is the API's list answer (spec 2.1) with its items typed. */
export type Page<T> = Omit<Static<ReturnType<typeof PageSchema>>, "items"> & { items: T[] };
