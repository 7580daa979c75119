/** auth/principal: who is calling — a console session or an API key — and whether they may do what the route needs. */
import type { Config } from "../config";
import { ApiError } from "../errors";
import type { Clock } from "../lib/clock";
import { safeEqual, sha256Hex } from "../lib/hash";
import { storageFailure } from "../store/space";
import type { Store } from "../store/store";
import type { Actor } from "./actor";
import { findUser, membershipsOf, type Membership } from "./accounts";
import { looksLikeApiKey, readCookieValue } from "./secrets";
import { scopesOfRole, type Role, type Scope } from "./scopes";

interface PrincipalBase {
  workspaceId: string | null;
  scopes: ReadonlySet<Scope>;
  actor: Actor;
}

export interface SessionPrincipal extends PrincipalBase {
  kind: "session";
  sessionId: string;
  user: { id: string; email: string; name: string | null; platformAdmin: boolean };
  role: Role | null;
  memberships: Membership[];
  /** The chosen workspace is suspended (spec 3.4). */
  suspended: boolean;
}

export interface ApiKeyPrincipal extends PrincipalBase {
  kind: "api_key";
  workspaceId: string;
  keyId: string;
}

export type Principal = SessionPrincipal | ApiKeyPrincipal;

/** AuthRequirement is what a route declares: a scope (or any one of several), a console session, or a platform administrator. */
export interface AuthRequirement {
  scope?: Scope;
  /** The caller must hold at least one of these scopes (spec 4.5: `asset:manage`, or `template:content` for images). */
  anyScope?: readonly Scope[];
  session?: boolean;
  platformAdmin?: boolean;
  /** A console session of any member of the workspace, or an API key holding this scope (the workspace export). */
  keyScope?: Scope;
  /**
   * The route may change things while the caller's workspace is suspended (spec 3.4). Without it every write (POST, PUT,
   * PATCH, DELETE) of a suspended workspace's member is refused; docs/decisions.md lists the routes that declare it.
   */
  whileSuspended?: boolean;
}

export interface AuthDeps {
  config: Config;
  store: Store;
  clock: Clock;
}

const LAST_USED_EVERY_MS = 60_000;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** consoleOrigin is the console's origin, PUBLIC_URL's (DESIGN.md 3): the one Origin a cookie may write with. */
export function consoleOrigin(config: Config): string {
  return new URL(config.publicUrl).origin;
}

/** isConsoleOrigin tells whether an Origin header names the console. */
export function isConsoleOrigin(config: Config, origin: string | null): boolean {
  return origin === consoleOrigin(config);
}

/** readCookie answers one cookie's value from a Cookie header. */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

function unauthorized(message: string): ApiError {
  return new ApiError("UNAUTHORIZED", message);
}

async function fromApiKey(deps: AuthDeps, secret: string): Promise<ApiKeyPrincipal> {
  if (!looksLikeApiKey(secret)) throw unauthorized("The API key is not valid.");
  const hash = sha256Hex(secret);
  const key = await deps.store.get<{ id: string; name: string; workspace_id: string; secret_hash: string; scopes: string; enabled: number; expires_at: string | null; last_used_at: string | null; suspended: number }>(
    `SELECT k.id, k.name, k.workspace_id, k.secret_hash, k.scopes, k.enabled, k.expires_at, k.last_used_at, w.suspended
     FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.secret_hash = $hash`,
    { hash },
  );
  // The lookup is by hash; the constant-time compare keeps the final decision free of early exits.
  if (!key || !safeEqual(key.secret_hash, hash)) throw unauthorized("The API key is not valid.");
  if (key.enabled !== 1) throw unauthorized("The API key has been revoked.");
  const now = deps.clock.now();
  if (key.expires_at && Date.parse(key.expires_at) <= now.getTime()) throw unauthorized("The API key has expired.");
  // spec 5.3.7: a suspended workspace refuses its API keys.
  if (key.suspended === 1) throw new ApiError("FORBIDDEN", "The workspace is suspended; its API keys are refused.");
  if (!key.last_used_at || now.getTime() - Date.parse(key.last_used_at) >= LAST_USED_EVERY_MS) {
    try {
      await deps.store.tx((tx) => tx.run("UPDATE api_keys SET last_used_at = $now WHERE id = $id", { now: now.toISOString(), id: key.id }));
    } catch (e) {
      // Bookkeeping: a read goes on while DATA_DIR cannot take a write (issue 26); a later use records the time.
      if (!storageFailure(e)) throw e;
    }
  }
  return {
    kind: "api_key",
    keyId: key.id,
    workspaceId: key.workspace_id,
    scopes: new Set(JSON.parse(key.scopes) as Scope[]),
    actor: { type: "api_key", id: key.id, name: key.name },
  };
}

async function fromSession(deps: AuthDeps, cookieValue: string, workspaceHeader: string | null): Promise<SessionPrincipal> {
  const token = readCookieValue(deps.config.secretKey, cookieValue);
  if (!token) throw unauthorized("The session is not valid; sign in again.");
  const session = await deps.store.get<{ id: string; user_id: string; expires_at: string }>(
    "SELECT id, user_id, expires_at FROM sessions WHERE token_hash = $hash",
    { hash: sha256Hex(token) },
  );
  if (!session || Date.parse(session.expires_at) <= deps.clock.now().getTime()) throw unauthorized("The session has expired; sign in again.");
  const [user, memberships] = await Promise.all([findUser(deps.store, session.user_id), membershipsOf(deps.store, session.user_id)]);
  if (!user) throw unauthorized("The session is not valid; sign in again.");
  const chosen = workspaceHeader ? memberships.find((m) => m.workspaceId === workspaceHeader) : memberships[0];
  if (workspaceHeader && !chosen) throw new ApiError("NOT_FOUND", `Workspace ${workspaceHeader} was not found.`);
  return {
    kind: "session",
    sessionId: session.id,
    user: { id: user.id, email: user.email, name: user.name, platformAdmin: user.platform_admin === 1 },
    role: chosen?.role ?? null,
    memberships,
    suspended: chosen?.suspended ?? false,
    workspaceId: chosen?.workspaceId ?? null,
    scopes: new Set(chosen ? scopesOfRole(chosen.role) : []),
    actor: { type: "user", id: user.id, email: user.email, ...(user.name ? { name: user.name } : {}) },
  };
}

/** authenticate answers the caller of a request, or null when it carries no credential; a bad credential is 401. */
export async function authenticate(deps: AuthDeps, request: Request): Promise<Principal | null> {
  const apiKey = request.headers.get("x-api-key");
  if (apiKey !== null) return fromApiKey(deps, apiKey);
  const cookie = readCookie(request.headers.get("cookie"), deps.config.sessionCookieName);
  if (cookie !== null) return fromSession(deps, cookie, request.headers.get("x-workspace-id"));
  return null;
}

/** authorize applies a route's requirement (spec 5.3) to an authenticated caller, throwing 401/403 when it falls short. */
export function authorize(deps: AuthDeps, request: Request, principal: Principal | null, need: AuthRequirement): Principal {
  if (!principal) throw unauthorized("Sign in or send an API key in the x-api-key header.");
  if ((need.session || need.platformAdmin) && principal.kind !== "session")
    throw new ApiError("FORBIDDEN", "This operation needs a signed-in console session; API keys are refused here.");
  if (principal.kind === "session" && !SAFE_METHODS.has(request.method)) {
    // A cookie rides along on cross-site requests; only our own console's Origin may write with it.
    if (!isConsoleOrigin(deps.config, request.headers.get("origin")))
      throw new ApiError(
        "FORBIDDEN",
        `A request authenticated by the session cookie must carry Origin ${consoleOrigin(deps.config)}, the console's; if the console is opened at another address, set PUBLIC_URL to it.`,
      );
  }
  // spec 3.4: members of a suspended workspace can still sign in, read and export; its API keys are refused earlier.
  if (principal.kind === "session" && principal.suspended && !SAFE_METHODS.has(request.method) && !need.whileSuspended)
    throw new ApiError(
      "FORBIDDEN",
      `Workspace ${principal.workspaceId} is suspended: its members can read and export it but change nothing until a platform administrator restores it.`,
    );
  if (need.platformAdmin && !(principal.kind === "session" && principal.user.platformAdmin))
    throw new ApiError("FORBIDDEN", "This operation needs a platform administrator.");
  // `scope` is the one-scope case of `anyScope`.
  const anyOf = need.scope ? [need.scope] : need.anyScope;
  if (anyOf) {
    if (!principal.workspaceId) throw new ApiError("FORBIDDEN", "You are not a member of any workspace.");
    if (!anyOf.some((s) => principal.scopes.has(s)))
      throw new ApiError("FORBIDDEN", anyOf.length === 1 ? `This operation needs the ${anyOf[0]} scope.` : `This operation needs one of the scopes ${anyOf.join(", ")}.`);
  }
  if (need.keyScope) {
    if (!principal.workspaceId) throw new ApiError("FORBIDDEN", "You are not a member of any workspace.");
    if (principal.kind === "api_key" && !principal.scopes.has(need.keyScope))
      throw new ApiError("FORBIDDEN", `With an API key this operation needs the ${need.keyScope} scope; any member may use it from the console.`);
  }
  return principal;
}

/** workspaceOf answers the workspace a scoped route acts on (authorize has made sure there is one). */
export function workspaceOf(principal: Principal): string {
  if (!principal.workspaceId) throw new ApiError("FORBIDDEN", "You are not a member of any workspace.");
  return principal.workspaceId;
}
