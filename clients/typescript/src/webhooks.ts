/** webhooks: checks a renderd webhook delivery as its receiver must (Standard Webhooks, docs/webhooks.md): the
 * `webhook-signature` is an HMAC-SHA256 under the endpoint's secret over `<webhook-id>.<webhook-timestamp>.<body>`, and
 * the timestamp is within five minutes. Web Crypto only, so it runs in Node 20+, Bun, Deno, workers and browsers. */

/** WebhookEvent is the body of a delivery: a render reached a final state. */
export interface WebhookEvent {
  id: string;
  type: "render.succeeded" | "render.failed" | "render.cancelled";
  createdAt: string;
  data: { renderId: string; status: "succeeded" | "failed" | "cancelled"; test: boolean; errorCode?: string };
}

/** WebhookVerificationError says why a delivery was refused; answer it with 400 and renderd tries again later. */
export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

/** The headers a delivery comes with, as a Headers object (fetch, Bun, Deno) or a plain record (Node's IncomingMessage). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** The endpoint's signing secret, `whsec_…`; during a rotation, both the new and the old one. */
  secret: string | string[];
  headers: WebhookHeaders;
  /** The raw body as received, before any JSON parsing (the signature covers its exact bytes). */
  body: string | Uint8Array;
  /** Seconds a timestamp may be away from `now`; default 300, as renderd's own check. */
  toleranceSeconds?: number;
  now?: Date;
}

const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

function header(headers: WebhookHeaders, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) throw new WebhookVerificationError(`The ${name} header is missing.`);
  return text;
}

function base64(bytes: ArrayBuffer): string {
  let text = "";
  for (const byte of new Uint8Array(bytes)) text += String.fromCharCode(byte);
  return btoa(text);
}

async function signature(secret: string, signed: Uint8Array<ArrayBuffer>): Promise<string> {
  const match = SECRET.exec(secret);
  if (!match) throw new WebhookVerificationError("A signing secret has the form whsec_<base64>.");
  // Standard Webhooks: the key is the decoded bytes after the prefix.
  const raw = Uint8Array.from(atob(match[1]!), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return `v1,${base64(await crypto.subtle.sign("HMAC", key, signed))}`;
}

/** safeEqual compares two signatures in time independent of where they differ. */
function safeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** verifyWebhook answers the delivery's event once its signature and timestamp check, or throws WebhookVerificationError. */
export async function verifyWebhook(options: VerifyOptions): Promise<WebhookEvent> {
  const id = header(options.headers, "webhook-id");
  const timestamp = header(options.headers, "webhook-timestamp");
  const offered = header(options.headers, "webhook-signature").split(" ").filter((s) => s.startsWith("v1,"));
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError("The webhook-timestamp header is not a Unix time in seconds.");
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError("The webhook-timestamp is too far from now.");
  const body = typeof options.body === "string" ? new TextEncoder().encode(options.body) : options.body;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  for (const secret of Array.isArray(options.secret) ? options.secret : [options.secret]) {
    const expected = await signature(secret, signed);
    if (offered.some((candidate) => safeEqual(candidate, expected))) return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  }
  throw new WebhookVerificationError("No signature matches the body and the secret.");
}
