/** bootstrap: the first start on an empty store makes workspace `default` and its platform-administrator owner. */
import { randomBase62 } from "./lib/ids";
import type { Clock } from "./lib/clock";
import type { Store } from "./store/open";
import { CLI_ACTOR } from "./modules/audit/model";
import { countUsers, createUser, hashPassword } from "./modules/users/service";
import { createWorkspace } from "./modules/workspaces/service";

export interface FirstStart {
  email: string;
  /** Set only when RENDERD_ADMIN_PASSWORD was not given: shown to the operator once, never logged. */
  generatedPassword?: string;
}

/** bootstrapIfEmpty creates the first workspace and administrator when the store has no user; null otherwise. */
export async function bootstrapIfEmpty(store: Store, clock: Clock, admin: { email: string; password?: string }): Promise<FirstStart | null> {
  if (countUsers(store) > 0) return null;
  const generatedPassword = admin.password === undefined ? randomBase62(20) : undefined;
  const passwordHash = await hashPassword(admin.password ?? generatedPassword!);
  const ctx = { actor: { ...CLI_ACTOR, id: "bootstrap", name: "first start" }, requestId: "bootstrap" };
  const created = store.tx(() => {
    // Another process may have bootstrapped while we hashed.
    if (countUsers(store) > 0) return false;
    const ws = store.get<{ id: string }>("SELECT id FROM workspaces WHERE slug = 'default'")?.id ?? createWorkspace(store, clock, ctx, { name: "Default", slug: "default" }).id;
    createUser(store, clock, ctx, { email: admin.email, name: "Administrator", passwordHash, workspace: ws, role: "owner", platformAdmin: true });
    return true;
  });
  return created ? { email: admin.email, generatedPassword } : null;
}
