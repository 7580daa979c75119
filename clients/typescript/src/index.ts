/**
 * @renderd/client: a typed client of renderd's API. The types are generated from the server's `/v1/openapi.json`
 * (`schema.ts`, made by renderd's build); the calls are openapi-fetch's, with the API key and the base address set
 * once; `renderAndWait`, `download` and `verifyWebhook` cover what every integration writes next.
 */
import createFetchClient, { type Client } from "openapi-fetch";
import type { components, operations, paths } from "./schema";

export type { components, operations, paths } from "./schema";
export { verifyWebhook, WebhookVerificationError, type VerifyOptions, type WebhookEvent, type WebhookHeaders } from "./webhooks";

type Schemas = components["schemas"];
/** Render is a render as the API answers it. */
export type Render = operations["getV1RendersId"]["responses"][200]["content"]["application/json"];
/** RenderRequest is the body of POST /v1/renders: a template with data, a document, or HTML. */
export type RenderRequest = NonNullable<operations["postV1Renders"]["requestBody"]>["content"]["application/json"];
/** FinishedRender is a render that succeeded, with the signed address of its PDF. */
export type FinishedRender = Render & { status: "succeeded"; result: NonNullable<Render["result"]> };
/** ErrorBody is the error envelope every failed request answers. */
export type ErrorBody = Schemas["Error"];

export interface ClientOptions {
  /** Where renderd answers, e.g. `https://render.example.com` (no `/v1`). */
  baseUrl: string;
  /** An API key, `rd_…`, with the scopes the calls need (render:create and render:read for renderAndWait). */
  apiKey?: string;
  /** Another fetch (a test's, a proxy's); the global one by default. */
  fetch?: typeof fetch;
  /** Headers sent with every request (a W3C traceparent, a proxy's token). */
  headers?: Record<string, string>;
}

export interface WaitOptions {
  /** How long renderAndWait waits in all, in seconds (default 120); each request waits at most 60, the API's bound. */
  timeoutSeconds?: number;
  /** Sent as Idempotency-Key: a retry after a broken connection gets the same render, never a second one. */
  idempotencyKey?: string;
}

/** RenderdError is a request renderd refused or a render that did not succeed, with the envelope's fields. */
export class RenderdError extends Error {
  override name = "RenderdError";
  constructor(
    message: string,
    /** The HTTP status; 0 for a render that ended failed or cancelled. */
    readonly status: number,
    readonly code: string,
    readonly retryable: boolean,
    readonly details: { path?: string; message: string }[] = [],
    /** The render a failure is about: whole when renderAndWait read it, or its id from the envelope. */
    readonly render?: Render,
    readonly renderId = render?.id,
  ) {
    super(message);
  }
}

/** RenderdClient is openapi-fetch's typed client for renderd's paths, with the helpers below. */
export interface RenderdClient extends Client<paths> {
  /** renderAndWait creates a render and waits until it has ended: a succeeded render (with `result.downloadUrl`), or a
   * RenderdError naming the failure (or the timeout, with the render still running in `error.render`). */
  renderAndWait(body: RenderRequest, options?: WaitOptions): Promise<FinishedRender>;
  /** download answers the bytes of a succeeded render's PDF (or XLSX), by its signed address — no key needed. */
  download(render: Render | string): Promise<Uint8Array>;
}

const MAX_WAIT_SECONDS = 60;

/** refused answers the error of a refused request from its envelope (`body`: as openapi-fetch parsed it, or the text). */
function refused(response: Response, body: unknown): RenderdError {
  const envelope = (typeof body === "string" ? safeParse(body) : body) as Partial<ErrorBody> | undefined;
  const error = envelope?.error;
  if (error?.code) return new RenderdError(error.message, response.status, error.code, error.retryable, error.details ?? [], undefined, error.renderId);
  return new RenderdError(`renderd answered HTTP ${response.status}`, response.status, "INTERNAL", response.status >= 500);
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function ended(render: Render): FinishedRender {
  if (render.status === "succeeded" && render.result) return render as FinishedRender;
  const error = render.error ?? { code: render.status === "cancelled" ? "CANCELLED" : "RENDER_FAILED", message: `The render ${render.status}.` };
  throw new RenderdError(`Render ${render.id} ${render.status}: ${error.message}`, 0, error.code, false, [], render);
}

const FINAL = new Set(["succeeded", "failed", "cancelled"]);

/** createClient answers the typed client of the renderd at `baseUrl`, authenticated with `apiKey`. */
export function createClient(options: ClientOptions): RenderdClient {
  const headers = { ...options.headers, ...(options.apiKey ? { "x-api-key": options.apiKey } : {}) };
  const client = createFetchClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ""), headers, fetch: options.fetch });
  const fetchOf = options.fetch ?? ((input: Request) => fetch(input));

  const renderAndWait = async (body: RenderRequest, wait: WaitOptions = {}): Promise<FinishedRender> => {
    const deadline = Date.now() + (wait.timeoutSeconds ?? 120) * 1000;
    const seconds = () => Math.max(0, Math.min(MAX_WAIT_SECONDS, Math.ceil((deadline - Date.now()) / 1000)));
    const created = await client.POST("/v1/renders", {
      params: { query: { wait: seconds() }, header: wait.idempotencyKey ? { "Idempotency-Key": wait.idempotencyKey } : undefined },
      body,
    });
    if (!created.response.ok) throw refused(created.response, created.error);
    let render = created.data as Render;
    // Past the server's own wait, ask again until the render ends or the time is up.
    while (!FINAL.has(render.status)) {
      if (Date.now() >= deadline) throw new RenderdError(`Render ${render.id} is still ${render.status} after the wait.`, 0, "TIMEOUT", true, [], render);
      await new Promise((resolve) => setTimeout(resolve, 250));
      const read = await client.GET("/v1/renders/{id}", { params: { path: { id: render.id } } });
      if (!read.response.ok) throw refused(read.response, read.error);
      render = read.data as Render;
    }
    return ended(render);
  };

  const download = async (target: Render | string): Promise<Uint8Array> => {
    let render = typeof target === "string" ? undefined : target;
    if (!render?.result) {
      const read = await client.GET("/v1/renders/{id}", { params: { path: { id: typeof target === "string" ? target : target.id } } });
      if (!read.response.ok) throw refused(read.response, read.error);
      render = read.data as Render;
    }
    const { result } = ended(render);
    const response = await fetchOf(new Request(result.downloadUrl));
    if (!response.ok) throw refused(response, await response.text());
    return new Uint8Array(await response.arrayBuffer());
  };

  return Object.assign(client, { renderAndWait, download });
}
