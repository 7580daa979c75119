/** dispatcher: the loop that claims due deliveries and sends them (spec 6.3–6.6); rows are the queue, so a restart loses none. */
import type { Logger } from "pino";
import type { Clock } from "../lib/clock";
import type { Metrics } from "../metrics/metrics";
import type { Store } from "../store/open";
import { checkDestination, type DestinationOptions } from "./destinations";
import { eventBody, onEndEvent, type EventRow } from "./events";
import { nextAttemptAt, TIMEOUT_MS } from "./retry";
import { decryptSecret } from "./secret-box";
import { signatureHeader } from "./sign";
import { sweepWebhookHistory } from "./retention";

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

const POLL_MS = 250;
const CONCURRENCY = 64;
// One endpoint that hangs until the 10 s timeout holds at most this many slots, so the other workspaces' deliveries go on.
const PER_ENDPOINT = 8;
const SWEEP_EVERY_MS = 60 * 60 * 1000;
// A claimed row is left alone this long past the attempt's timeout; only a crash mid-attempt lets a lease run out.
const LEASE_MARGIN_MS = 60_000;

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

/** Dispatcher sends due deliveries, at most `concurrency` at once and `perEndpoint` to one endpoint; start/stop like every
 * supervised piece (STYLE habit 8). */
export class Dispatcher {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly perEndpoint: number;
  private readonly endpointLoad = new Map<string, number>();
  private readonly pollMs: number;
  private readonly inflight = new Map<string, Promise<void>>();
  private finished: Finished[] = [];
  private scheduled = false;
  private stopping = false;
  private poller: ReturnType<typeof setInterval> | null = null;
  private sweeper: ReturnType<typeof setInterval> | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: DispatcherOptions) {
    this.store = options.store;
    this.clock = options.clock;
    this.log = options.log;
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
    this.concurrency = options.concurrency ?? CONCURRENCY;
    this.perEndpoint = options.perEndpoint ?? PER_ENDPOINT;
    this.pollMs = options.pollMs ?? POLL_MS;
  }

  /** start begins polling for due deliveries, listens for new ones written in this process, and sweeps old history. */
  start(): void {
    if (this.poller) return;
    this.unsubscribe = onEndEvent(this.store, () => this.notify());
    this.poller = setInterval(() => this.notify(), this.pollMs);
    this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.sweep();
    this.notify();
  }

  /** notify asks for a tick soon; calls before it runs share it (one transaction). */
  notify(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // A timer, never a direct call: enqueueEndEvent calls this inside the render's transaction, whose rows show once it commits.
    setTimeout(() => {
      this.scheduled = false;
      this.tick();
    }, 0);
  }

  /** runOnce sends everything due now and waits until no attempt is in flight and every outcome is written: tests and
   * benchmarks call it instead of sleeping. */
  async runOnce(): Promise<void> {
    for (;;) {
      this.tick();
      if (this.inflight.size === 0) return;
      await Promise.all([...this.inflight.values()]);
    }
  }

  /** inFlight answers how many attempts are being sent now. */
  get inFlight(): number {
    return this.inflight.size;
  }

  /** stop claims nothing more and waits for the attempts in flight, so their outcomes are recorded before the store closes. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.poller) clearInterval(this.poller);
    if (this.sweeper) clearInterval(this.sweeper);
    this.poller = this.sweeper = null;
    this.unsubscribe?.();
    while (this.inflight.size > 0) await Promise.all([...this.inflight.values()]);
    this.tick();
  }

  private sweep(): void {
    try {
      const swept = sweepWebhookHistory(this.store, this.clock, this.options.retentionDays);
      if (swept.deliveries || swept.events) this.log.info(swept, "webhook history swept");
    } catch (err) {
      this.log.error({ err }, "webhook history sweep failed");
    }
  }

  /**
   * tick writes the outcomes of the attempts that ended and claims due deliveries for the free slots, in one transaction:
   * one commit per tick rather than two per delivery (synchronous=FULL makes each commit a sync to disk). Outcomes are written
   * before the claim, so a row that just failed is never claimed again on its old due time.
   */
  private tick(): void {
    const finished = this.finished;
    this.finished = [];
    const free = this.stopping ? 0 : this.concurrency - this.inflight.size;
    if (finished.length === 0 && free <= 0) return;
    let jobs: Job[];
    try {
      jobs = this.store.tx(() => {
        for (const f of finished) this.record(f);
        return free > 0 ? this.claim(free) : [];
      });
    } catch (err) {
      // Unwritten outcomes are not lost for good: their leases run out and those rows are sent again (spec 6.5 (4)).
      this.log.error({ err }, "recording or claiming webhook deliveries failed");
      return;
    }
    for (const job of jobs) {
      this.endpointLoad.set(job.endpoint_id, (this.endpointLoad.get(job.endpoint_id) ?? 0) + 1);
      const attempt = this.attempt(job).then((f) => {
        this.finished.push(f);
        this.inflight.delete(job.id);
        const load = this.endpointLoad.get(job.endpoint_id)! - 1;
        if (load > 0) this.endpointLoad.set(job.endpoint_id, load);
        else this.endpointLoad.delete(job.endpoint_id);
        this.notify();
      });
      this.inflight.set(job.id, attempt);
    }
  }

  /** claim leases up to `limit` due deliveries; one whose endpoint is disabled fails instead, unsent (spec 3.1). Inside tick's transaction. */
  private claim(limit: number): Job[] {
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const busy = [...this.endpointLoad].filter(([, load]) => load >= this.perEndpoint).map(([id]) => id);
    const rows = this.store.all<JobRow>(
      `SELECT d.id, d.endpoint_id, d.attempts, e.url, e.enabled, e.secret_encrypted, e.previous_secret_encrypted,
         e.previous_secret_expires_at, v.id AS event_id, v.type, v.render_id, v.status AS event_status, v.test, v.error_code,
         v.created_at AS event_created_at
       FROM webhook_deliveries d
         JOIN webhook_endpoints e ON e.id = d.endpoint_id
         JOIN webhook_events v ON v.id = d.event_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= $now AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $now)
         AND d.endpoint_id NOT IN (SELECT value FROM json_each($busy))
       ORDER BY d.next_attempt_at, d.id
       LIMIT $limit`,
      // Endpoints at their cap are left out in SQL, so a long backlog of one never hides the others' due rows. Rows this
      // process is still sending are skipped below, even if a moved clock made their lease look expired.
      { now: nowIso, busy: JSON.stringify(busy), limit: 2 * limit + this.inflight.size },
    );
    const claimed = new Map<string, number>();
    const jobs: Job[] = [];
    const lease = new Date(now.getTime() + this.timeoutMs + LEASE_MARGIN_MS).toISOString();
    for (const r of rows) {
      if (this.inflight.has(r.id) || jobs.length >= limit) continue;
      const load = (this.endpointLoad.get(r.endpoint_id) ?? 0) + (claimed.get(r.endpoint_id) ?? 0);
      if (load >= this.perEndpoint) continue;
      if (r.enabled !== 1) {
        // spec 3.1 and 3.5: the next attempt was reached while the endpoint is disabled; no request, no attempt counted.
        this.store.run(
          `UPDATE webhook_deliveries SET status = 'failed', last_error = $error, next_attempt_at = NULL, lease_expires_at = NULL
           WHERE id = $id`,
          { id: r.id, error: LAST_ERROR.disabled },
        );
        continue;
      }
      this.store.run("UPDATE webhook_deliveries SET lease_expires_at = $lease WHERE id = $id", { id: r.id, lease });
      claimed.set(r.endpoint_id, (claimed.get(r.endpoint_id) ?? 0) + 1);
      jobs.push({
        id: r.id,
        endpoint_id: r.endpoint_id,
        attempts: r.attempts,
        url: r.url,
        secret_encrypted: r.secret_encrypted,
        previous_secret_encrypted: r.previous_secret_encrypted,
        previous_secret_expires_at: r.previous_secret_expires_at,
        event: {
          id: r.event_id,
          type: r.type,
          render_id: r.render_id,
          status: r.event_status,
          test: r.test,
          error_code: r.error_code,
          created_at: r.event_created_at,
        },
      });
    }
    return jobs;
  }

  private async attempt(job: Job): Promise<Finished> {
    const at = this.clock.now();
    try {
      return { job, at, outcome: await this.send(job, at) };
    } catch (err) {
      this.log.error({ err, deliveryId: job.id }, "webhook attempt failed unexpectedly");
      return { job, at, outcome: { statusCode: null, error: LAST_ERROR.failed("INTERNAL") } };
    }
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

  private async send(job: Job, at: Date): Promise<Outcome> {
    const secrets = this.secretsOf(job, at);
    if (!secrets) return { statusCode: null, error: LAST_ERROR.secret };
    // spec 6.5 (5): the destination check runs again on every delivery; its reason is the lastError (6.6).
    const check = await checkDestination(job.url, this.options.destinations);
    if (!check.ok) return { statusCode: null, error: check.reason };
    const body = eventBody(job.event);
    // spec 6.4 (3): every attempt is signed again with a fresh timestamp.
    const timestamp = Math.floor(at.getTime() / 1000);
    const headers: Record<string, string> = {
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
  private record({ job, at, outcome }: Finished): void {
    const attempts = job.attempts + 1;
    const next = outcome.error === null ? null : nextAttemptAt(at, attempts);
    const status = outcome.error === null ? "succeeded" : next ? "pending" : "failed";
    // `status = 'pending'`: a row deleted with its endpoint meanwhile stays deleted; a recorded 2xx is never overwritten.
    this.store.run(
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
