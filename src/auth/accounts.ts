/** auth/accounts: the reads of users and memberships that sign-in and every session request need. */
import type { Reads } from "../store/store";
import type { Role } from "./scopes";

export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  password_hash: string;
  platform_admin: number;
  created_at: string;
}

export interface Membership {
  workspaceId: string;
  workspaceName: string;
  role: Role;
  /** The workspace is suspended (spec 3.4): its members may read it, not change it. */
  suspended: boolean;
}

/** findUserByEmail answers the user with that e-mail (case-insensitive), or null. */
export function findUserByEmail(store: Reads, email: string): Promise<UserRow | null> {
  return store.get<UserRow>("SELECT * FROM users WHERE email = $email", { email: email.trim() });
}

/** findUser answers the user with that id, or null. */
export function findUser(store: Reads, id: string): Promise<UserRow | null> {
  return store.get<UserRow>("SELECT * FROM users WHERE id = $id", { id });
}

/** membershipsOf answers a user's workspaces, oldest membership first (the default workspace is the first). */
export async function membershipsOf(store: Reads, userId: string): Promise<Membership[]> {
  const rows = await store.all<{ workspace_id: string; name: string; role: Role; suspended: number }>(
    `SELECT m.workspace_id, w.name, m.role, w.suspended FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
     WHERE m.user_id = $user ORDER BY m.created_at, m.workspace_id`,
    { user: userId },
  );
  return rows.map((r) => ({ workspaceId: r.workspace_id, workspaceName: r.name, role: r.role, suspended: r.suspended === 1 }));
}
