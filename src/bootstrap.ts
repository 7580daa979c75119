/** bootstrap: the first start on an empty store makes workspace `default` and its platform-administrator owner. */
import { randomBase62 } from "./lib/ids";
import type { Clock } from "./lib/clock";
import type { Store } from "./store/store";
import { CLI_ACTOR } from "./auth/actor";
import { countUsers, createUser, hashPassword } from "./modules/users/service";
import { createWorkspace } from "./modules/workspaces/service";

export interface FirstStart {
  email: string;
  /** Set only when RENDERD_ADMIN_PASSWORD was not given: shown to the operator once, never logged. */
  generatedPassword?: string;
}

/** FirstStartPlan is a first start made ready but not yet written: the administrator's password is hashed. */
export interface FirstStartPlan extends FirstStart {
  passwordHash: string;
}

/** planFirstStart hashes the administrator's password (slow on purpose) when the store has no user; null otherwise. It writes nothing. */
export async function planFirstStart(store: Store, admin: { email: string; password?: string }): Promise<FirstStartPlan | null> {
  if (countUsers(store) > 0) return null;
  const generatedPassword = admin.password === undefined ? randomBase62(20) : undefined;
  const passwordHash = await hashPassword(admin.password ?? generatedPassword!);
  return { email: admin.email, generatedPassword, passwordHash };
}

/**
 * applyFirstStart creates workspace `default` and its administrator from a plan, synchronously, so that server.ts can
 * call it right after binding its ports, before any request is served. Null when another process got there first.
 */
export function applyFirstStart(store: Store, clock: Clock, plan: FirstStartPlan): FirstStart | null {
  const ctx = { actor: { ...CLI_ACTOR, id: "bootstrap", name: "first start" }, requestId: "bootstrap" };
  const created = store.tx(() => {
    // Another process may have bootstrapped the same store while this one started.
    if (countUsers(store) > 0) return false;
    const ws = store.get<{ id: string }>("SELECT id FROM workspaces WHERE slug = 'default'")?.id ?? createWorkspace(store, clock, ctx, { name: "Default", slug: "default" }).id;
    createUser(store, clock, ctx, { email: plan.email, name: "Administrator", passwordHash: plan.passwordHash, workspace: ws, role: "owner", platformAdmin: true });
    return true;
  });
  return created ? { email: plan.email, generatedPassword: plan.generatedPassword } : null;
}
