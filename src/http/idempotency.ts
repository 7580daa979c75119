/**
 * http/idempotency: the `Idempotency-Key` header on the routes that create (docs/rendering.md), as Stripe does. The
 * first answer a handler gives to a key is kept 24 hours per workspace; the same key with the same request answers it
 * again without running the handler; with another request, or while the first is still running, 409 CONFLICT. The
 * step that creates keeps its answer in its own transaction (`kept`), so even a process that dies mid-request never
 * lets a retry create twice.
 */
import { StatusMap } from "elysia";
import stableStringify from "safe-stable-stringify";
import { workspaceOf, type Principal } from "../auth/principal";
import { ApiError, type ErrorCode } from "../errors";
import type { Clock } from "../lib/clock";
import { sha256Hex } from "../lib/hash";
import type { Store, Tx, TxOptions } from "../store/store";
import { requestPath } from "./request-target";
import type { ErrorEnvelope } from "./schemas";

/** KEEP_MS is how long a key's first answer is kept (Stripe: 24 hours). */
export const KEEP_MS = 24 * 60 * 60 * 1000;
// A key whose first request has not answered in this long was left by a process that died: its kept answer is replayed,
// or, when it kept none, the key may be claimed again. Far above the longest request (?wait is at most 60 s).
const ABANDONED_MS = 10 * 60 * 1000;
// Stripe's bound; visible ASCII keeps keys safe to log and to show.
const KEY_PATTERN = "^[\\x21-\\x7e]{1,255}$";
const KEY_FORM = new RegExp(KEY_PATTERN);
const KEY_HEADER = "idempotency-key";
const REPLAYED_HEADER = "idempotent-replayed";

/** IDEMPOTENCY_KEY_PARAMETER describes the header in a route's OpenAPI operation: `detail: { parameters: [it] }`. */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Sent again with the same request within 24 hours, answers the first answer again (docs/rendering.md).",
  schema: { type: "string", pattern: KEY_PATTERN },
} as const;

/** IdempotencyDeps is what keeping keys needs: the store and the clock their 24 hours are counted by. */
export interface IdempotencyDeps {
  store: Store;
  clock: Clock;
}

/** The part of a route's context idempotency needs: the request, its validated body, the caller, the answer's status. */
interface RouteContext {
  request: Request;
  body: unknown;
  principal: Principal;
  set: { status?: number | keyof StatusMap; headers: Record<string, unknown> };
}

interface KeyRow {
  fingerprint: string;
  status: number | null;
  body: string | null;
  final: number;
  created_at: string;
  expires_at: string;
}

/** Kept runs the step that creates something and keeps `status` with its result as the answer so far, in one
 * transaction (committed with `options`, which the step's own transaction then follows): should the process die before
 * the request answers (during a `?wait`), a retry gets that answer rather than a second creation. */
export type Kept = <T>(status: number, create: (tx: Tx) => Promise<T>, options?: TxOptions) => Promise<T>;

/** idempotent answers `once`, which runs a JSON route's work honouring `Idempotency-Key`:
 * `.post(path, (ctx) => once(ctx, (kept) => work(ctx, kept)), …)`. */
export function idempotent(deps: IdempotencyDeps) {
  return async <R>(ctx: RouteContext, work: (kept: Kept) => R | Promise<R>): Promise<R> => {
    const key = ctx.request.headers.get(KEY_HEADER);
    if (key === null) return work((_, create, options) => deps.store.tx(create, options));
    if (!KEY_FORM.test(key))
      throw new ApiError("BAD_REQUEST", "The Idempotency-Key header must be 1 to 255 visible ASCII characters, such as a UUID.", {
        details: [{ path: `/${KEY_HEADER}`, message: "must be 1 to 255 visible ASCII characters" }],
      });
    const workspaceId = workspaceOf(ctx.principal);
    const first = await claim(deps, workspaceId, key, fingerprintOf(ctx.request, ctx.body));
    if (first) return replay<R>(ctx, first);
    const kept: Kept = (status, create, options) =>
      deps.store.tx(async (tx) => {
        const created = await create(tx);
        await keep(tx, workspaceId, key, status, created, false);
        return created;
      }, options);
    try {
      const answer = await work(kept);
      const status = ctx.set.status === undefined ? 200 : typeof ctx.set.status === "number" ? ctx.set.status : StatusMap[ctx.set.status];
      await deps.store.tx((tx) => keep(tx, workspaceId, key, status, answer, true));
      return answer;
    } catch (e) {
      // Stripe keeps the failures of a request that ran, but not a refusal of its parameters (BAD_REQUEST: the client
      // fixes the body and may send it with the same key); a retryable failure (RATE_LIMITED, INTERNAL) asks for the
      // same request again, so its key is let go for that retry — unless something was created: then the answer kept
      // with it stands.
      if (e instanceof ApiError && !e.retryable && e.code !== "BAD_REQUEST") await deps.store.tx((tx) => keep(tx, workspaceId, key, e.status, e.toBody(), true));
      else await release(deps, workspaceId, key);
      throw e;
    }
  };
}

/** sweepIdempotencyKeys deletes the keys kept longer than KEEP_MS; answers how many. */
export function sweepIdempotencyKeys(deps: IdempotencyDeps): Promise<number> {
  return deps.store.tx((tx) => tx.run("DELETE FROM idempotency_keys WHERE expires_at <= $now", { now: deps.clock.now().toISOString() }));
}

// "The same request": the same method and path and the same body once its keys are sorted. The query (`?wait`) only
// says how long to wait for the answer, not what is created, so it is not part of it.
function fingerprintOf(request: Request, body: unknown): string {
  return sha256Hex(`${request.method} ${requestPath(request)}\n${stableStringify(body ?? null)}`);
}

/** claim answers the first answer to replay, or claims the key for this request (null); 409 when it cannot. The key's
 * row is inserted first: of two requests with one key at once, the second's insert waits for the first's commit and
 * inserts nothing, and the row it then reads, locked, is the first's (docs/scale-out.md "Locks"). */
function claim(deps: IdempotencyDeps, workspaceId: string, key: string, fingerprint: string): Promise<{ status: number; body: string } | null> {
  const now = deps.clock.now();
  const claimed = { ws: workspaceId, key, fingerprint, now: now.toISOString(), expires: new Date(now.getTime() + KEEP_MS).toISOString() };
  return deps.store.tx(async (tx) => {
    const inserted = await tx.run(
      `INSERT INTO idempotency_keys (workspace_id, key, fingerprint, created_at, expires_at) VALUES ($ws, $key, $fingerprint, $now, $expires)
       ON CONFLICT (workspace_id, key) DO NOTHING`,
      claimed,
    );
    if (inserted > 0) return null;
    const row = await tx.get<KeyRow>(
      "SELECT fingerprint, status, body, final, created_at, expires_at FROM idempotency_keys WHERE workspace_id = $ws AND key = $key FOR UPDATE",
      { ws: workspaceId, key },
    );
    const running = row !== null && row.final === 0 && now.getTime() - Date.parse(row.created_at) < ABANDONED_MS;
    // An abandoned key that kept no answer created nothing: it is claimed again like an expired one.
    const live = row !== null && Date.parse(row.expires_at) > now.getTime() && (running || row.status !== null);
    if (row && live) {
      if (row.fingerprint !== fingerprint)
        throw new ApiError("CONFLICT", "This Idempotency-Key was used with a different request (another body or path); send a new key for a new request.");
      if (running)
        throw new ApiError("CONFLICT", "A request with this Idempotency-Key is still running; send it again once that one has answered to get its answer.");
      return { status: row.status!, body: row.body! };
    }
    // Expired, or abandoned without an answer (or let go since the insert): claimed again, as new.
    await tx.run(
      `INSERT INTO idempotency_keys (workspace_id, key, fingerprint, created_at, expires_at) VALUES ($ws, $key, $fingerprint, $now, $expires)
       ON CONFLICT (workspace_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = NULL, body = NULL, final = 0, created_at = excluded.created_at, expires_at = excluded.expires_at`,
      claimed,
    );
    return null;
  });
}

async function keep(tx: Tx, workspaceId: string, key: string, status: number, body: unknown, final: boolean): Promise<void> {
  await tx.run("UPDATE idempotency_keys SET status = $status, body = $body, final = $final WHERE workspace_id = $ws AND key = $key", {
    status,
    body: JSON.stringify(body),
    final: final ? 1 : 0,
    ws: workspaceId,
    key,
  });
}

// Lets the key go when nothing was created; when something was, the answer kept with it becomes the answer.
function release(deps: IdempotencyDeps, workspaceId: string, key: string): Promise<void> {
  return deps.store.tx(async (tx) => {
    await tx.run("DELETE FROM idempotency_keys WHERE workspace_id = $ws AND key = $key AND status IS NULL", { ws: workspaceId, key });
    await tx.run("UPDATE idempotency_keys SET final = 1 WHERE workspace_id = $ws AND key = $key", { ws: workspaceId, key });
  });
}

// Stripe's header tells a replay from a first answer. An error is thrown again (the same envelope, through the one
// error path); anything else is the answer `work` gave, so it is an R.
function replay<R>(ctx: RouteContext, first: { status: number; body: string }): R {
  const headers = { [REPLAYED_HEADER]: "true" };
  if (first.status >= 400) {
    const { error } = JSON.parse(first.body) as ErrorEnvelope;
    throw new ApiError(error.code as ErrorCode, error.message, { details: error.details, renderId: error.renderId, headers });
  }
  ctx.set.status = first.status;
  Object.assign(ctx.set.headers, headers);
  return JSON.parse(first.body) as R;
}
