/** bootstrap: the first start on an empty store makes workspace `default` and its platform-administrator owner. */
import { randomBase62 } from "./lib/ids";
import type { Clock } from "./lib/clock";
import type { Reads, Store } from "./store/store";
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
export async function planFirstStart(store: Reads, admin: { email: string; password?: string }): Promise<FirstStartPlan | null> {
  if ((await countUsers(store)) > 0) return null;
  const generatedPassword = admin.password === undefined ? randomBase62(20) : undefined;
  const passwordHash = await hashPassword(admin.password ?? generatedPassword!);
  return { email: admin.email, generatedPassword, passwordHash };
}

/**
 * applyFirstStart creates workspace `default` and its administrator from a plan, in one transaction; server.ts calls it
 * right after binding its ports, before any request is served. Null when another process got there first.
 */
export async function applyFirstStart(store: Store, clock: Clock, plan: FirstStartPlan): Promise<FirstStart | null> {
  const ctx = { actor: { ...CLI_ACTOR, id: "bootstrap", name: "first start" }, requestId: "bootstrap" };
  const created = await store.tx(async (tx) => {
    // Processes starting together on one empty store take turns here: each locks the newest migration's row, which every
    // migrated store has, so the second sees the first's administrator and creates nothing.
    await tx.get("SELECT version FROM schema_migrations WHERE version = (SELECT MAX(version) FROM schema_migrations) FOR UPDATE");
    if ((await countUsers(tx)) > 0) return false;
    const existing = await tx.get<{ id: string }>("SELECT id FROM workspaces WHERE slug = 'default'");
    const ws = existing?.id ?? (await createWorkspace(tx, clock, ctx, { name: "Default", slug: "default" })).id;
    await createUser(tx, clock, ctx, { email: plan.email, name: "Administrator", passwordHash: plan.passwordHash, workspace: ws, role: "owner", platformAdmin: true });
    return true;
  });
  return created ? { email: plan.email, generatedPassword: plan.generatedPassword } : null;
}
