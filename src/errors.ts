/** errors: the one error type of renderd and the only table from error code to HTTP status (spec 7, DESIGN.md 2). */

export const ERROR_CODES = [
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "CONFLICT",
  "RATE_LIMITED",
  "TEMPLATE_INVALID",
  "DATA_INVALID",
  "ASSET_INVALID",
  "UNSUPPORTED_FEATURE",
  "LIMIT_EXCEEDED",
  "QUOTA_EXCEEDED",
  "LICENSE_REQUIRED",
  "RENDER_TIMEOUT",
  "RENDER_FAILED",
  "INTERNAL",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** A problem with one part of the input; `path` is a JSON pointer such as `/scopes/3`. */
export interface ErrorDetail {
  path?: string;
  message: string;
}

const STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  LICENSE_REQUIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  LIMIT_EXCEEDED: 413,
  TEMPLATE_INVALID: 422,
  DATA_INVALID: 422,
  ASSET_INVALID: 422,
  UNSUPPORTED_FEATURE: 400,
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 429,
  RENDER_FAILED: 500,
  INTERNAL: 500,
  RENDER_TIMEOUT: 504,
};

const RETRYABLE: ReadonlySet<ErrorCode> = new Set(["RATE_LIMITED", "INTERNAL"]);

export interface ApiErrorOptions {
  details?: ErrorDetail[];
  renderId?: string;
  /** Seconds; sent as `Retry-After`. */
  retryAfter?: number;
  /** Only for the two statuses the code table cannot express: 405 (a known path, another method) and 503 (INTERNAL while
   * DATA_DIR cannot take growing writes: store/space.ts). */
  status?: 405 | 503;
  headers?: Record<string, string>;
}

/** ApiError is thrown anywhere a request must fail; `app.ts` turns it into the 7.1 envelope. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details?: ErrorDetail[];
  readonly renderId?: string;
  readonly retryAfter?: number;
  readonly headers?: Record<string, string>;
  private readonly statusOverride?: number;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.details = options.details;
    this.renderId = options.renderId;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
    this.statusOverride = options.status;
  }

  get status(): number {
    return this.statusOverride ?? STATUS[this.code];
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }

  /** toBody gives the spec 7.1 envelope. */
  toBody(): { error: Record<string, unknown> } {
    const error: Record<string, unknown> = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.details?.length) error.details = this.details;
    if (this.renderId) error.renderId = this.renderId;
    return { error };
  }
}

/** statusOf answers the HTTP status of an error code, for the places that report a code without throwing. */
export function statusOf(code: ErrorCode): number {
  return STATUS[code];
}
