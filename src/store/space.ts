/** store/space: how much room DATA_DIR has left, and whether renderd takes growing writes now (issue 26; docs/operations.md
 * "When the disk fills"). New renders, uploads and templates are refused (503, retryable) while DATA_DIR's free space is
 * under STORAGE_MIN_FREE_BYTES, and for a short hold after a write failed for want of space (or on a read-only store):
 * refusing at the threshold, before the disk itself is full, keeps the room an accepted render needs to finish. Reads
 * are never refused. */
import { statfsSync } from "node:fs";
import { Type, type Static } from "@sinclair/typebox";
import type { Logger } from "pino";
import { ApiError } from "../errors";
import { literalUnion } from "../lib/literals";

/** StorageFailure is what an error says about the store's disk: full (or over quota), read-only, or failing. */
export type StorageFailure = "full" | "read_only" | "io_error";

/** REFUSALS are why growing writes are refused: free space under the threshold ("low"), or a failure within its hold. */
export const REFUSALS = ["low", "full", "read_only", "io_error"] as const;
export type Refusal = (typeof REFUSALS)[number];

/** SpaceStatus is what /internal/state carries (and /health, /metrics and the TUI read). */
export const SpaceStatus = Type.Object({
  dataDir: Type.String(),
  freeBytes: Type.Integer(),
  minFreeBytes: Type.Integer(),
  /** Why growing writes are refused now; null while they are taken. */
  refusing: Type.Union([literalUnion(REFUSALS), Type.Null()]),
  /** The last storage failure's message while its hold lasts, for the operator. */
  lastError: Type.Union([Type.String(), Type.Null()]),
});
export type SpaceStatus = Static<typeof SpaceStatus>;

// How often the watch looks while nobody asks (every ask looks anew: one statfs, dwarfed by any growing write).
const WATCH_EVERY_MS = 1_000;
/** FAILURE_HOLD_MS is how long growing writes stay refused after a write failed; then the next one tries again. */
export const FAILURE_HOLD_MS = 5_000;
// A failure this soon after the last is the same outage in the log: a read-only store is not logged every hold.
const SAME_OUTAGE_MS = 60_000;
const RETRY_AFTER_SECONDS = 10;

/** storageFailure answers what `error` says about the disk under the store or the files, or null for any other error. */
export function storageFailure(error: unknown): StorageFailure | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return null;
  if (code === "ENOSPC" || code === "EDQUOT" || code === "SQLITE_FULL") return "full";
  if (code === "EROFS" || code.startsWith("SQLITE_READONLY")) return "read_only";
  if (code === "EIO" || code.startsWith("SQLITE_IOERR")) return "io_error";
  return null;
}

/** freeBytesOf answers the bytes an unprivileged writer may still use on the file system holding `dir`. */
export function freeBytesOf(dir: string): number {
  const fs = statfsSync(dir);
  return fs.bavail * fs.bsize;
}

export interface SpaceOptions {
  dataDir: string;
  minFreeBytes: number;
  log: Logger;
  /** Real time, not the injected clock: the hold is about the disk, not the calendar (tests move the clock freely). */
  now?: () => number;
}

/** Space watches DATA_DIR for the process: one instance, asked before every growing write and told of every failure. */
export class Space {
  private readonly now: () => number;
  private failure: { kind: StorageFailure; message: string; until: number } | null = null;
  private lastFailure: { kind: StorageFailure; at: number } | null = null;
  /** The outage last logged, so that one is logged once when it starts and once when it ends. */
  private logged: Refusal | null = null;
  private timer?: ReturnType<typeof setInterval>;

  constructor(private readonly options: SpaceOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** watch looks every second, so that an outage's start and end are logged even while nobody asks. */
  watch(): void {
    this.timer ??= setInterval(() => this.status(), WATCH_EVERY_MS);
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** status answers DATA_DIR's free space and whether growing writes are refused, logging a change of either. */
  status(): SpaceStatus {
    const { dataDir, minFreeBytes } = this.options;
    const now = this.now();
    let free = 0;
    try {
      free = freeBytesOf(dataDir);
    } catch (err) {
      // DATA_DIR gone or unreadable: no room to count on.
      this.hold(storageFailure(err) ?? "io_error", (err as Error).message);
    }
    if (this.failure && this.failure.until <= now) this.failure = null;
    const refusing: Refusal | null = this.failure?.kind ?? (free < minFreeBytes ? "low" : null);
    const status = { dataDir, freeBytes: free, minFreeBytes, refusing, lastError: this.failure?.message ?? null };
    const recent = this.lastFailure && now - this.lastFailure.at < SAME_OUTAGE_MS ? this.lastFailure.kind : null;
    this.report(status, refusing ?? recent);
    return status;
  }

  /** assertRoom throws the 503 a growing write answers while refusing; the `beforeHandle` of every growing route. */
  readonly assertRoom = (): void => {
    const status = this.status();
    if (status.refusing) throw refusal(status);
  };

  /** failed tells the watch that a write failed: a storage failure starts a hold (and answers the 503 to give), any other
   * error is not the watch's (null). */
  failed(error: unknown): ApiError | null {
    const kind = storageFailure(error);
    if (!kind) return null;
    this.hold(kind, (error as Error).message);
    return refusal(this.status());
  }

  private hold(kind: StorageFailure, message: string): void {
    const now = this.now();
    this.failure = { kind, message, until: now + FAILURE_HOLD_MS };
    this.lastFailure = { kind, at: now };
  }

  /** toJSON keeps the watch out of serialisations of the context it travels in (Elysia checksums a plugin's seed). */
  toJSON(): string {
    return "Space";
  }

  /** report logs an outage's start and end: `outage` is the refusal, or a failure's kind for SAME_OUTAGE_MS after it. */
  private report(status: SpaceStatus, outage: Refusal | null): void {
    if ((outage === null) === (this.logged === null)) return;
    const { log } = this.options;
    const fields = { dataDir: status.dataDir, freeBytes: status.freeBytes, minFreeBytes: status.minFreeBytes, reason: outage ?? this.logged, error: status.lastError ?? undefined };
    if (outage) log.error(fields, "DATA_DIR cannot take growing writes: new renders, uploads and templates answer 503 until it can; reads go on");
    else log.info(fields, "DATA_DIR takes growing writes again");
    this.logged = outage;
  }
}

/** refusal answers the 503 for a refusing status: what is wrong with DATA_DIR, its free bytes, and what to do. The path
 * itself stays out of the answer (the operator reads it in /internal/state and the log). */
function refusal(status: SpaceStatus): ApiError {
  const free = `${status.freeBytes} bytes free`;
  const why: Record<Refusal, string> = {
    low: `DATA_DIR has ${free}, under STORAGE_MIN_FREE_BYTES (${status.minFreeBytes})`,
    full: `Writing to DATA_DIR failed for want of space (${free})`,
    read_only: `The store under DATA_DIR is read-only (${free})`,
    io_error: `Writing to DATA_DIR failed with an I/O error (${free})`,
  };
  return new ApiError(
    "INTERNAL",
    `${why[status.refusing!]}: renderd takes no new renders, uploads or templates until the operator frees space there; reads go on, and renders already accepted are finished. Try again later.`,
    { status: 503, retryAfter: RETRY_AFTER_SECONDS },
  );
}
