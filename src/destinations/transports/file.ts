/** transports/file: what every transport is handed — one finished render's file — and where it connects. */

/** OutgoingFile is a render's output as a destination receives it. */
export interface OutgoingFile {
  bytes: Uint8Array<ArrayBuffer>;
  /** The render's file name, placeholders filled in (placeholders.ts). */
  filename: string;
  mediaType: string;
  /** An e-mail's subject, placeholders filled in. */
  subject: string;
}

/** Dial is the checked host (hosts.ts): transports connect to `address`, never to the name again, and check TLS against `host`. */
export interface Dial {
  host: string;
  address: string;
  url: URL;
  /** spec 6.7 relaxed: plain connections (SMTP without STARTTLS) are allowed only with DESTINATION_ALLOW_PRIVATE=1. */
  allowPlain: boolean;
  timeoutMs: number;
  /** Headers an HTTP delivery adds: the attempt's W3C traceparent when tracing is on. */
  traceHeaders: Record<string, string>;
}

/** withTimeout rejects with a clear message when `work` takes longer than `ms`, for clients that take no signal. */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s.`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
