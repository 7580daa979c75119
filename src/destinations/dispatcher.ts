/** destinations/dispatcher: the loop that claims due deliveries and sends each render's file to its destination. Rows are
 * the queue and the webhook schedule (webhooks/retry.ts) paces the retries, so a restart loses none. */
import type { Logger } from "pino";
import type { Clock } from "../lib/clock";
import type { FileStore } from "../store/files";
import type { Store } from "../store/open";
import type { DestinationOptions } from "../webhooks/destinations";
import { nextAttemptAt } from "../webhooks/retry";
import { decryptSecret } from "../webhooks/secret-box";
import { onDeliveriesDue } from "./deliveries";
import type { DestinationConfig, DestinationType } from "./settings";
import { deliver } from "./transports";

/** The lastError texts the dispatcher writes itself (a transport's own message otherwise). */
export const DELIVERY_ERROR = {
  secrets: "The destination's credentials cannot be decrypted (SECRET_KEY changed?); save them again with PATCH.",
  gone: "The render's file is no longer kept (RETENTION_DAYS).",
  internal: "The delivery failed unexpectedly; it will be tried again.",
} as const;

/** An attempt that takes longer fails: uploads are bigger than webhook bodies, so the limit is above spec 6.5's 10 s. */
export const DELIVERY_TIMEOUT_MS = 60_000;

const POLL_MS = 1000;
const CONCURRENCY = 8;
// A claimed row is left alone this long past the attempt's timeout; only a crash mid-attempt lets a lease run out.
const LEASE_MARGIN_MS = 60_000;

export interface DeliveryDispatcherOptions {
  store: Store;
  clock: Clock;
  log: Logger;
  files: FileStore;
  /** SECRET_KEY: opens the destinations' credentials. */
  secretKey: string;
  /** spec 6.7 as destinations apply it (hosts.ts), checked again before every attempt. */
  hosts: DestinationOptions;
  timeoutMs?: number;
  pollMs?: number;
  concurrency?: number;
}

interface Job {
  id: string;
  destination_id: string;
  type: DestinationType;
  config: string;
  secrets_encrypted: string;
  attempts: number;
  filename: string;
  subject: string | null;
  output_sha256: string | null;
}

type Outcome = { location: string; error: null } | { location: null; error: string };

/** mediaTypeOf answers the media type a render's output is sent with, from its file name. */
export function mediaTypeOf(filename: string): string {
  return filename.toLowerCase().endsWith(".xlsx") ? "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" : "application/pdf";
}

/** openConfig answers a destination's whole config, credentials opened, or null when they cannot be decrypted. */
export function openConfig(secretKey: string, row: { id: string; type: DestinationType; config: string; secrets_encrypted: string }): DestinationConfig | null {
  const secrets = decryptSecret(secretKey, row.id, row.secrets_encrypted);
  if (secrets === null) return null;
  return { type: row.type, config: { ...JSON.parse(row.config), ...JSON.parse(secrets) } } as DestinationConfig;
}

/** DeliveryDispatcher sends due deliveries, at most `concurrency` at once; start/stop like every supervised piece (STYLE habit 8). */
export class DeliveryDispatcher {
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private scheduled = false;
  private stopping = false;
  private poller: ReturnType<typeof setInterval> | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: DeliveryDispatcherOptions) {
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.concurrency = options.concurrency ?? CONCURRENCY;
  }

  /** start begins polling for due deliveries and listens for renders that make some due in this process. */
  start(): void {
    if (this.poller) return;
    this.unsubscribe = onDeliveriesDue(this.options.store, () => this.notify());
    this.poller = setInterval(() => this.notify(), this.options.pollMs ?? POLL_MS);
    this.notify();
  }

  /** notify asks for a tick soon; a timer, since settleDeliveries calls it inside the render's transaction. */
  notify(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => {
      this.scheduled = false;
      this.tick();
    }, 0);
  }

  /** runOnce sends everything due now and waits until no attempt is in flight: tests call it instead of sleeping. */
  async runOnce(): Promise<void> {
    for (;;) {
      this.tick();
      if (this.inflight.size === 0) return;
      await Promise.all([...this.inflight.values()]);
    }
  }

  /** stop claims nothing more and waits for the attempts in flight, so their outcomes are written before the store closes. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    this.unsubscribe?.();
    while (this.inflight.size > 0) await Promise.all([...this.inflight.values()]);
  }

  private tick(): void {
    const free = this.stopping ? 0 : this.concurrency - this.inflight.size;
    if (free <= 0) return;
    let jobs: Job[];
    try {
      jobs = this.options.store.tx(() => this.claim(free));
    } catch (err) {
      this.options.log.error({ err }, "claiming destination deliveries failed");
      return;
    }
    for (const job of jobs) {
      const attempt = this.attempt(job).then(() => {
        this.inflight.delete(job.id);
        this.notify();
      });
      this.inflight.set(job.id, attempt);
    }
  }

  /** claim leases up to `limit` due deliveries, as the webhook dispatcher does: a lease that runs out (a crash) frees the row. */
  private claim(limit: number): Job[] {
    const { store, clock } = this.options;
    const now = clock.now();
    const rows = store.all<Job>(
      `SELECT d.id, d.destination_id, s.type, s.config, s.secrets_encrypted, d.attempts, d.filename, d.subject, r.output_sha256
       FROM destination_deliveries d
         JOIN destinations s ON s.id = d.destination_id
         JOIN renders r ON r.id = d.render_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= $now AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $now)
       ORDER BY d.next_attempt_at, d.id
       LIMIT $limit`,
      { now: now.toISOString(), limit: limit + this.inflight.size },
    );
    const lease = new Date(now.getTime() + this.timeoutMs + LEASE_MARGIN_MS).toISOString();
    const jobs = rows.filter((r) => !this.inflight.has(r.id)).slice(0, limit);
    for (const job of jobs) store.run("UPDATE destination_deliveries SET lease_expires_at = $lease WHERE id = $id", { id: job.id, lease });
    return jobs;
  }

  private async attempt(job: Job): Promise<void> {
    const at = this.options.clock.now();
    let outcome: Outcome;
    try {
      outcome = { location: await this.send(job), error: null };
    } catch (err) {
      outcome = { location: null, error: err instanceof Error && err.message ? err.message : DELIVERY_ERROR.internal };
    }
    try {
      this.options.store.tx(() => this.record(job, at, outcome));
    } catch (err) {
      // The lease runs out and the row is tried again.
      this.options.log.error({ err, deliveryId: job.id }, "recording a destination delivery failed");
    }
  }

  private async send(job: Job): Promise<string> {
    const destination = openConfig(this.options.secretKey, { id: job.destination_id, type: job.type, config: job.config, secrets_encrypted: job.secrets_encrypted });
    if (!destination) throw new Error(DELIVERY_ERROR.secrets);
    const file = job.output_sha256 ? this.options.files.openOutput(job.output_sha256) : null;
    if (!file || !(await file.exists())) throw new Error(DELIVERY_ERROR.gone);
    const bytes = await file.bytes();
    return deliver(destination, { bytes, filename: job.filename, subject: job.subject ?? job.filename, mediaType: mediaTypeOf(job.filename) }, this.options.hosts, this.timeoutMs);
  }

  /** record writes an attempt's outcome: delivered, pending with the next attempt's time, or failed after the last (spec 6.5 (3) schedule). */
  private record(job: Job, at: Date, outcome: Outcome): void {
    const attempts = job.attempts + 1;
    const next = outcome.error === null ? null : nextAttemptAt(at, attempts);
    const status = outcome.error === null ? "delivered" : next ? "pending" : "failed";
    this.options.store.run(
      `UPDATE destination_deliveries SET status = $status, attempts = $attempts, last_error = $error, last_attempt_at = $at,
         next_attempt_at = $next, lease_expires_at = NULL, delivered_at = $delivered, location = $location
       WHERE id = $id AND status = 'pending'`,
      {
        id: job.id,
        status,
        attempts,
        error: outcome.error,
        at: at.toISOString(),
        next: next ? next.toISOString() : null,
        delivered: outcome.error === null ? at.toISOString() : null,
        location: outcome.location,
      },
    );
    // Never the config or the error's stack: a transport's message names hosts and paths, never credentials.
    const fields = { deliveryId: job.id, destinationId: job.destination_id, type: job.type, attempt: attempts, error: outcome.error };
    if (status === "failed") this.options.log.warn(fields, "destination delivery failed for good");
    else this.options.log.info({ ...fields, status }, "destination delivery attempt");
  }
}
