/** dispatcher: the loop that claims due deliveries and sends them (spec 6.3–6.6); rows are the queue, so a restart loses none. */
import type { Logger } from "pino";
import type { Clock } from "../lib/clock";
import type { Metrics } from "../metrics/metrics";
import { noTracing, type Tracing } from "../tracing/tracing";
import type { Reads, Store, Tx } from "../store/store";
import { checkDestination, type DestinationOptions } from "./destinations";
import { eventBody, type EventRow } from "./events";
import { TIMEOUT_MS } from "./retry";
import { decryptSecret } from "./secret-box";
import { signatureHeader } from "./sign";
import { sweepWebhookHistory } from "./retention";
import { ClaimLoop } from "./claim-loop";
import { attemptResult, dueRows, leaseRow, type DueRowsQuery } from "./delivery-rows";

/** spec 6.3: `<service>-webhooks/1`. */
export const USER_AGENT = "renderd-webhooks/1";

/** spec 6.6: the `lastError` texts that are not a destination message. */
export const LAST_ERROR = {
  status: (code: number) => `The endpoint answered HTTP ${code}.`,
  timeout: "The endpoint did not respond in time.",
  failed: (code: string) => `The request failed (${code}).`,
  disabled: "The endpoint is disabled.",
  secret: "The endpoint's signing secret cannot be decrypted.",
} as const;

// New events and ended attempts wake the loop (in this process and, through the store, in others); the poll finds only
// retries, which wait 30 s at least (spec 6.5), and leases a crash left, so once a second is soon enough. At 250 ms an
// idle process read the due rows four times a second (docs/performance.md, "The log's redaction; the webhooks' poll").
const POLL_MS = 1000;
const CONCURRENCY = 64;
// One endpoint that hangs until the 10 s timeout holds at most this many slots, so the other workspaces' deliveries go on.
const PER_ENDPOINT = 8;
const SWEEP_EVERY_MS = 60 * 60 * 1000;

const DUE: DueRowsQuery = {
  table: "webhook_deliveries",
  columns: `d.id, d.endpoint_id, d.attempts, e.url, e.enabled, e.secret_encrypted, e.previous_secret_encrypted,
    e.previous_secret_expires_at, v.id AS event_id, v.type, v.render_id, v.status AS event_status, v.test, v.error_code,
    v.created_at AS event_created_at, r.traceparent`,
  joins: "JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN webhook_events v ON v.id = d.event_id LEFT JOIN renders r ON r.id = v.render_id",
  keyColumn: "endpoint_id",
};

export interface DispatcherOptions {
  store: Store;
  clock: Clock;
  log: Logger;
  /** SECRET_KEY: opens the endpoints' signing secrets. */
  secretKey: string;
  /** spec 6.5 (5): the 6.7 rules, checked again before every attempt. */
  destinations: DestinationOptions;
  /** RETENTION_DAYS: delivery records and events older than this are swept (spec 2.9). */
  retentionDays: number;
  /** spec 6.5 (1): 10 s; lowered only by tests. */
  timeoutMs?: number;
  /** Attempts in flight at once. */
  concurrency?: number;
  /** Attempts in flight at once to one endpoint. */
  perEndpoint?: number;
  pollMs?: number;
  /** Counts each attempt's outcome (docs/operations.md). */
  metrics?: Metrics;
  /** Each attempt's span, in its render's trace, its traceparent sent to the endpoint (tracing/tracing.ts). */
  tracing?: Tracing;
}

/** A claimed delivery with what its attempt needs, read in the claiming transaction. */
interface Job {
  id: string;
  endpoint_id: string;
  attempts: number;
  url: string;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: string | null;
  /** The traceparent of the request that made the render, stored with tracing on. */
  traceparent: string | null;
  event: EventRow;
}

interface JobRow extends Omit<Job, "event"> {
  enabled: number;
  event_id: string;
  type: EventRow["type"];
  render_id: string;
  event_status: EventRow["status"];
  test: number;
  error_code: string | null;
  event_created_at: string;
}

/** The result of one attempt: a status code when an answer came, and the 6.6 text when it failed. */
interface Outcome {
  statusCode: number | null;
  error: string | null;
}

/** An attempt that has ended and waits for the next tick to be written. */
interface Finished {
  job: Job;
  at: Date;
  outcome: Outcome;
}

/** Dispatcher sends due deliveries, at most `concurrency` at once and `perEndpoint` to one endpoint, on the shared claim
 * loop (claim-loop.ts: start, notify, runOnce, stop). */
export class Dispatcher extends ClaimLoop<JobRow, Job, Finished> {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly timeoutMs: number;
  private sweeper: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly options: DispatcherOptions) {
    super({
      store: options.store,
      log: options.log,
      what: "webhook deliveries",
      channel: "webhook_deliveries",
      concurrency: options.concurrency ?? CONCURRENCY,
      perKey: options.perEndpoint ?? PER_ENDPOINT,
      pollMs: options.pollMs ?? POLL_MS,
    });
    this.store = options.store;
    this.clock = options.clock;
    this.log = options.log;
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  }

  /** start begins polling for due deliveries, listens for new ones, and sweeps old history. */
  override start(): boolean {
    if (!super.start()) return false;
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_EVERY_MS);
    void this.sweep();
    return true;
  }

  /** stop claims nothing more and waits for the attempts in flight, so their outcomes are recorded before the store closes. */
  override async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    await super.stop();
  }

  private async sweep(): Promise<void> {
    try {
      const swept = await sweepWebhookHistory(this.store, this.clock, this.options.retentionDays);
      if (swept.deliveries || swept.events) this.log.info(swept, "webhook history swept");
    } catch (err) {
      this.log.error({ err }, "webhook history sweep failed");
    }
  }

  /** candidates reads due deliveries with what their attempt needs, endpoints at their cap left out; with `lock`, the
   * deliveries' rows locked and those another process is claiming skipped. */
  protected candidates(db: Reads, limit: number, busy: string[], lock: boolean): Promise<JobRow[]> {
    return dueRows<JobRow>(db, DUE, this.clock.now(), limit, busy, lock);
  }

  /** take leases a due delivery; one whose endpoint is disabled fails instead, unsent (spec 3.1). Inside the loop's transaction. */
  protected async take(tx: Tx, r: JobRow): Promise<Job | null> {
    if (r.enabled !== 1) {
      // spec 3.1 and 3.5: the next attempt was reached while the endpoint is disabled; no request, no attempt counted.
      await tx.run(
        `UPDATE webhook_deliveries SET status = 'failed', last_error = $error, next_attempt_at = NULL, lease_expires_at = NULL
         WHERE id = $id`,
        { id: r.id, error: LAST_ERROR.disabled },
      );
      return null;
    }
    await leaseRow(tx, DUE.table, r.id, this.clock.now(), this.timeoutMs);
    return {
      id: r.id,
      endpoint_id: r.endpoint_id,
      attempts: r.attempts,
      url: r.url,
      secret_encrypted: r.secret_encrypted,
      previous_secret_encrypted: r.previous_secret_encrypted,
      previous_secret_expires_at: r.previous_secret_expires_at,
      traceparent: r.traceparent,
      event: {
        id: r.event_id,
        type: r.type,
        render_id: r.render_id,
        status: r.event_status,
        test: r.test,
        error_code: r.error_code,
        created_at: r.event_created_at,
      },
    };
  }

  protected keyOf(row: JobRow): string {
    return row.endpoint_id;
  }

  protected async attempt(job: Job): Promise<Finished> {
    const at = this.clock.now();
    const span = (this.options.tracing ?? noTracing).delivery("webhook.deliver", job.traceparent, { "renderd.delivery_id": job.id, "renderd.render_id": job.event.render_id, "url.full": job.url });
    let outcome: Outcome;
    try {
      outcome = await this.send(job, at, span.headers());
    } catch (err) {
      this.log.error({ err, deliveryId: job.id }, "webhook attempt failed unexpectedly");
      outcome = { statusCode: null, error: LAST_ERROR.failed("INTERNAL") };
    }
    span.end(outcome.error, outcome.statusCode);
    return { job, at, outcome };
  }

  /** secretsOf answers the secrets that sign at `at`: the current one, and the replaced one within 24 h of rotation (spec 6.4 (4)). */
  private secretsOf(job: Job, at: Date): string[] | null {
    const current = decryptSecret(this.options.secretKey, job.endpoint_id, job.secret_encrypted);
    if (current === null) return null;
    const secrets = [current];
    if (job.previous_secret_encrypted && job.previous_secret_expires_at && at.toISOString() < job.previous_secret_expires_at) {
      const previous = decryptSecret(this.options.secretKey, job.endpoint_id, job.previous_secret_encrypted);
      if (previous !== null) secrets.push(previous);
    }
    return secrets;
  }

  private async send(job: Job, at: Date, traceHeaders: Record<string, string>): Promise<Outcome> {
    const secrets = this.secretsOf(job, at);
    if (!secrets) return { statusCode: null, error: LAST_ERROR.secret };
    // spec 6.5 (5): the destination check runs again on every delivery; its reason is the lastError (6.6).
    const check = await checkDestination(job.url, this.options.destinations);
    if (!check.ok) return { statusCode: null, error: check.reason };
    const body = eventBody(job.event);
    // spec 6.4 (3): every attempt is signed again with a fresh timestamp.
    const timestamp = Math.floor(at.getTime() / 1000);
    const headers: Record<string, string> = {
      ...traceHeaders,
      host: check.url.host,
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      "webhook-id": job.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatureHeader(secrets, job.id, timestamp, body),
    };
    let response: Response;
    try {
      const target = dialTarget(check.url, check.address);
      response = await fetch(target.url, {
        method: "POST",
        headers,
        body,
        // spec 6.5 (2): redirects are not followed; a 3xx fails the attempt like any other non-2xx.
        redirect: "manual",
        signal: AbortSignal.timeout(this.timeoutMs),
        tls: target.serverName ? { serverName: target.serverName } : undefined,
      });
    } catch (err) {
      return { statusCode: null, error: failureText(err) };
    }
    // spec 6.5 (1): the response body is ignored.
    response.body?.cancel().catch(() => {});
    const ok = response.status >= 200 && response.status < 300;
    return { statusCode: response.status, error: ok ? null : LAST_ERROR.status(response.status) };
  }

  /** record writes an attempt's outcome: succeeded, pending with the next attempt's time, or failed after the 11th (spec 3.1, 6.5). */
  protected async record(tx: Tx, { job, at, outcome }: Finished): Promise<void> {
    const result = attemptResult(at, job.attempts, outcome.error === null);
    const { attempts, next } = result;
    const status = result.status === "done" ? "succeeded" : result.status;
    // `status = 'pending'`: a row deleted with its endpoint meanwhile stays deleted; a recorded 2xx is never overwritten.
    await tx.run(
      `UPDATE webhook_deliveries SET status = $status, attempts = $attempts, last_status_code = $code, last_error = $error,
         last_attempt_at = $at, next_attempt_at = $next, lease_expires_at = NULL
       WHERE id = $id AND status = 'pending'`,
      {
        id: job.id,
        status,
        attempts,
        code: outcome.statusCode,
        error: outcome.error,
        at: at.toISOString(),
        next: next ? next.toISOString() : null,
      },
    );
    this.options.metrics?.deliveryAttempt(status === "pending" ? "retrying" : status);
    const fields = { deliveryId: job.id, endpointId: job.endpoint_id, eventId: job.event.id, attempt: attempts, statusCode: outcome.statusCode, error: outcome.error };
    if (status === "failed") this.log.warn(fields, "webhook delivery failed for good");
    else this.log.debug({ ...fields, status }, "webhook attempt");
  }
}

/** dialTarget gives the URL to fetch: the checked address in place of the host name, which goes into `host` and the TLS server name. */
export function dialTarget(url: URL, address: string): { url: string; serverName?: string } {
  // Bun's fetch has no lookup hook (DESIGN.md 5): dialling the name again could reach an address that was never checked.
  const host = address.includes(":") ? `[${address}]` : address;
  const target = `${url.protocol}//${host}${url.port ? `:${url.port}` : ""}${url.pathname}${url.search}`;
  // A certificate is checked against the name the user gave; an IP literal URL has no name to send (SNI carries names only).
  const hostname = url.hostname.replace(/\.$/, "");
  const isLiteral = hostname.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(hostname);
  return url.protocol === "https:" && !isLiteral ? { url: target, serverName: hostname } : { url: target };
}

/** failureText maps a fetch failure to its spec 6.6 text: a timeout, or the connection error's code. */
export function failureText(err: unknown): string {
  const e = err as { name?: string; code?: unknown };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return LAST_ERROR.timeout;
  const code = typeof e?.code === "string" && /^[A-Z0-9_]{1,64}$/.test(e.code) ? e.code : "UNKNOWN";
  return LAST_ERROR.failed(code);
}
