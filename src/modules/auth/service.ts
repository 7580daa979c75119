/** auth/service: signing in and out of the console, and changing one's password; sessions are rows, the cookie carries a signed token. */
import { ApiError } from "../../errors";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import type { Store } from "../../store/store";
import type { SessionPrincipal } from "../../auth/principal";
import { newSessionToken } from "../../auth/secrets";
import { recordAudit } from "../audit/service";
import type { ChangeContext } from "../../auth/actor";
import { findUser, findUserByEmail, membershipsOf } from "../../auth/accounts";
import { hashPassword, replacePassword, validatePassword } from "../users/service";
import type { ChangePasswordBody, Me } from "./model";

export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

// Verifying against a real hash when the e-mail is unknown keeps both failures equally slow. Made on first need, not at
// start-up: argon2id is slow on purpose.
let unknownUserHash: Promise<string> | undefined;

/** signIn checks the password, opens a session and audits the sign-in in each of the user's workspaces. */
export async function signIn(store: Store, clock: Clock, requestId: string, email: string, password: string): Promise<{ token: string; expiresAt: Date }> {
  const user = await findUserByEmail(store, email);
  const stored = user?.password_hash ?? (await (unknownUserHash ??= Bun.password.hash("renderd-unknown-user", { algorithm: "argon2id" })));
  const ok = await Bun.password.verify(password, stored);
  if (!user || !ok) throw new ApiError("UNAUTHORIZED", "The e-mail or password is not correct.");
  const { token, hash } = newSessionToken();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  const sessionId = newId("ses");
  await store.tx(async (tx) => {
    const [, , memberships] = await Promise.all([
      tx.run("DELETE FROM sessions WHERE expires_at <= $now", { now: now.toISOString() }),
      tx.run("INSERT INTO sessions (token_hash, id, user_id, created_at, expires_at) VALUES ($hash, $id, $user, $now, $exp)", {
        hash,
        id: sessionId,
        user: user.id,
        now: now.toISOString(),
        exp: expiresAt.toISOString(),
      }),
      membershipsOf(tx, user.id),
    ]);
    const actor = { type: "user" as const, id: user.id, email: user.email, ...(user.name ? { name: user.name } : {}) };
    await Promise.all(
      memberships.map((m) =>
        recordAudit(tx, clock, { actor, requestId }, { workspaceId: m.workspaceId, action: "user.signed_in", resourceType: "user", resourceId: user.id, resourceName: user.email, metadata: { sessionId } }),
      ),
    );
  });
  return { token, expiresAt };
}

/**
 * changePassword replaces the signed-in user's password after checking the current one; the caller's session stays and
 * every other session of the user ends. A wrong current password is 400 at `/currentPassword`, not 401: the session is
 * fine, and the console reads 401 as "signed out".
 */
export async function changePassword(store: Store, clock: Clock, ctx: ChangeContext, principal: SessionPrincipal, body: ChangePasswordBody): Promise<{ passwordChanged: true }> {
  const user = await findUser(store, principal.user.id);
  if (!user) throw new ApiError("UNAUTHORIZED", "The session is not valid; sign in again.");
  if (!(await Bun.password.verify(body.currentPassword, user.password_hash)))
    throw new ApiError("BAD_REQUEST", "The current password is not correct.", { details: [{ path: "/currentPassword", message: "is not your current password" }] });
  validatePassword(body.newPassword, "/newPassword", body.currentPassword);
  const passwordHash = await hashPassword(body.newPassword);
  await replacePassword(store, clock, ctx, user, passwordHash, { keepSessionId: principal.sessionId, expectedHash: user.password_hash });
  return { passwordChanged: true };
}

/** signOut ends the session. */
export async function signOut(store: Store, sessionId: string): Promise<void> {
  await store.tx((tx) => tx.run("DELETE FROM sessions WHERE id = $id", { id: sessionId }));
}

/** describeSession answers who is signed in and in which workspace. */
export function describeSession(principal: SessionPrincipal): Me {
  const workspaces = principal.memberships.map((m) => ({ id: m.workspaceId, name: m.workspaceName, role: m.role }));
  return {
    user: principal.user,
    workspace: workspaces.find((w) => w.id === principal.workspaceId) ?? null,
    workspaces,
  };
}
