/** users/service: console users, their passwords and their workspace memberships (DESIGN.md 3). */
import { ApiError } from "../../errors";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { passwordProblem } from "../../lib/passwords";
import type { Reads, Store, Tx } from "../../store/store";
import { membershipsOf, type UserRow } from "../../auth/accounts";
import type { Role } from "../../auth/scopes";
import type { ChangeContext } from "../../auth/actor";
import { recordAudit } from "../audit/service";
import { getWorkspace } from "../workspaces/service";

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/** hashPassword hashes with argon2id; done before the transaction because it is slow on purpose. */
export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

/** validatePassword refuses a new password that breaks the rule (docs/decisions.md); `path` names the field, `current` the password it replaces. */
export function validatePassword(password: string, path = "/password", current?: string): void {
  const problem = passwordProblem(password, current);
  if (problem) throw new ApiError("BAD_REQUEST", "Choose another password.", { details: [{ path, message: problem }] });
}

/**
 * replacePassword stores a new password hash, ends every session of the user but `keepSessionId`, and audits
 * `user.password_changed` in each of the user's workspaces (as sign-in is audited), all in one transaction. `expectedHash`,
 * when given, is the hash the caller verified against: if it changed meanwhile the change is refused (409).
 */
export async function replacePassword(
  store: Store,
  clock: Clock,
  ctx: ChangeContext,
  user: Pick<UserRow, "id" | "email">,
  passwordHash: string,
  options: { keepSessionId?: string; expectedHash?: string } = {},
): Promise<{ sessionsEnded: number }> {
  return store.tx(async (tx) => {
    const changed = options.expectedHash
      ? await tx.run("UPDATE users SET password_hash = $hash WHERE id = $id AND password_hash = $old", { hash: passwordHash, id: user.id, old: options.expectedHash })
      : await tx.run("UPDATE users SET password_hash = $hash WHERE id = $id", { hash: passwordHash, id: user.id });
    if (changed === 0) throw new ApiError("CONFLICT", "The password was changed meanwhile; sign in again with the new one.");
    const sessionsEnded = await tx.run("DELETE FROM sessions WHERE user_id = $user AND id IS DISTINCT FROM $keep", { user: user.id, keep: options.keepSessionId ?? null });
    for (const m of await membershipsOf(tx, user.id)) {
      await recordAudit(tx, clock, ctx, { workspaceId: m.workspaceId, action: "user.password_changed", resourceType: "user", resourceId: user.id, resourceName: user.email, metadata: { sessionsEnded } });
    }
    return { sessionsEnded };
  });
}

/** checkEmail answers the e-mail trimmed, or throws 400 at `/email` when it is not an e-mail address. */
export function checkEmail(email: string): string {
  const trimmed = email.trim();
  if (!EMAIL.test(trimmed)) throw new ApiError("BAD_REQUEST", `${trimmed} is not an e-mail address.`, { details: [{ path: "/email", message: "must be an e-mail address" }] });
  return trimmed;
}

/** createUser makes a user who is a member of one workspace with a role, and audits both; `passwordHash` comes from hashPassword. */
export async function createUser(
  tx: Tx,
  clock: Clock,
  ctx: ChangeContext,
  input: { email: string; name?: string; passwordHash: string; workspace: string; role: Role; platformAdmin: boolean },
): Promise<{ id: string; email: string; workspaceId: string; role: Role; platformAdmin: boolean }> {
  const email = checkEmail(input.email);
  const ws = await getWorkspace(tx, input.workspace);
  if (await tx.get("SELECT 1 FROM users WHERE email = $email", { email }))
    throw new ApiError("CONFLICT", `A user with e-mail ${email} already exists.`, { details: [{ path: "/email", message: "is taken" }] });
  const id = newId("usr");
  const now = clock.now().toISOString();
  await tx.run("INSERT INTO users (id, email, name, password_hash, platform_admin, created_at) VALUES ($id, $email, $name, $hash, $admin, $now)", {
    id,
    email,
    name: input.name ?? null,
    hash: input.passwordHash,
    admin: input.platformAdmin ? 1 : 0,
    now,
  });
  await tx.run("INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ($ws, $user, $role, $now)", {
    ws: ws.id,
    user: id,
    role: input.role,
    now,
  });
  await recordAudit(tx, clock, ctx, {
    workspaceId: ws.id,
    action: "user.created",
    resourceType: "user",
    resourceId: id,
    resourceName: email,
    metadata: { role: input.role, platformAdmin: input.platformAdmin },
  });
  return { id, email, workspaceId: ws.id, role: input.role, platformAdmin: input.platformAdmin };
}

/** countUsers answers how many users exist (first start creates the administrator when there are none). */
export async function countUsers(store: Reads): Promise<number> {
  return (await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM users"))!.n;
}
