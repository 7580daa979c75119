/** destinations/dispatcher: due deliveries claimed on the webhooks' claim loop and sent to their destinations; the webhook
 * schedule (webhooks/retry.ts) paces the retries. Rows are the queue, so a restart loses none. */
import type { Logger } from "pino";
import type { Clock } from "../lib/clock";
import type { FileStore } from "../store/files";
import type { Reads, Store, Tx } from "../store/store";
import { ClaimLoop } from "../webhooks/claim-loop";
import { attemptResult, dueRows, leaseRow, type DueRowsQuery } from "../webhooks/delivery-rows";
import type { DestinationOptions } from "../webhooks/destinations";
import { decryptSecret } from "../webhooks/secret-box";
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
// One destination that hangs until the timeout holds at most this many slots, so the others' deliveries go on.
const PER_DESTINATION = 4;

const DUE: DueRowsQuery = {
  table: "destination_deliveries",
  columns: "d.id, d.destination_id, s.type, s.config, s.secrets_encrypted, d.attempts, d.filename, d.subject, r.output_sha256",
  joins: "JOIN destinations s ON s.id = d.destination_id JOIN renders r ON r.id = d.render_id",
  keyColumn: "destination_id",
};

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

/** A finished attempt, written by the next tick. */
interface Finished {
  job: Job;
  at: Date;
  outcome: Outcome;
}

/** DeliveryDispatcher sends due deliveries on the webhooks' claim loop (webhooks/claim-loop.ts: start, runOnce, stop), at
 * most `concurrency` at once and PER_DESTINATION to one destination. */
export class DeliveryDispatcher extends ClaimLoop<Job, Job, Finished> {
  private readonly timeoutMs: number;

  constructor(private readonly options: DeliveryDispatcherOptions) {
    super({
      store: options.store,
      log: options.log,
      what: "destination deliveries",
      channel: "destination_deliveries",
      concurrency: options.concurrency ?? CONCURRENCY,
      perKey: PER_DESTINATION,
      pollMs: options.pollMs ?? POLL_MS,
    });
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  }

  protected candidates(db: Reads, limit: number, busy: string[], lock: boolean): Promise<Job[]> {
    return dueRows<Job>(db, DUE, this.options.clock.now(), limit, busy, lock);
  }

  protected async take(tx: Tx, job: Job): Promise<Job> {
    await leaseRow(tx, DUE.table, job.id, this.options.clock.now(), this.timeoutMs);
    return job;
  }

  protected keyOf(job: Job): string {
    return job.destination_id;
  }

  protected async attempt(job: Job): Promise<Finished> {
    const at = this.options.clock.now();
    try {
      return { job, at, outcome: { location: await this.send(job), error: null } };
    } catch (err) {
      return { job, at, outcome: { location: null, error: err instanceof Error && err.message ? err.message : DELIVERY_ERROR.internal } };
    }
  }

  private async send(job: Job): Promise<string> {
    const destination = openConfig(this.options.secretKey, { id: job.destination_id, type: job.type, config: job.config, secrets_encrypted: job.secrets_encrypted });
    if (!destination) throw new Error(DELIVERY_ERROR.secrets);
    const stored = job.output_sha256 ? await this.options.files.read("outputs", job.output_sha256) : null;
    if (!stored) throw new Error(DELIVERY_ERROR.gone);
    return deliver(destination, { bytes: new Uint8Array(stored), filename: job.filename, subject: job.subject ?? job.filename, mediaType: mediaTypeOf(job.filename) }, this.options.hosts, this.timeoutMs);
  }

  /** record writes an attempt's outcome: delivered, pending with the next attempt's time, or failed after the last (spec 6.5 (3) schedule). */
  protected async record(tx: Tx, { job, at, outcome }: Finished): Promise<void> {
    const result = attemptResult(at, job.attempts, outcome.error === null);
    const { attempts, next } = result;
    const status = result.status === "done" ? "delivered" : result.status;
    await tx.run(
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
