/** members/service: adding users to a workspace, changing their role and removing them, each audited in the
 * transaction of the change; the owner rules are one pure function (docs/members.md). */
import { ApiError } from "../../errors";
import { selectPage } from "../../http/paging";
import type { Clock } from "../../lib/clock";
import { randomBase62 } from "../../lib/ids";
import type { Reads, Store } from "../../store/store";
import type { Role } from "../../auth/scopes";
import type { ChangeContext } from "../../auth/actor";
import { recordAudit } from "../audit/service";
import { findUserByEmail } from "../../auth/accounts";
import { checkEmail, createUser, hashPassword } from "../users/service";
import { lockWorkspace } from "../workspaces/service";
import type { AddMemberBody, Member, MemberAdded } from "./model";

interface MemberRow {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  created_at: string;
}

// A membership seen with its user; `id` is the user's id, so the list pages by (created_at, id) like every other.
// Named: PostgreSQL before 16 refuses a subquery in FROM without an alias.
const MEMBERS = `(SELECT m.workspace_id, m.user_id AS id, u.email, u.name, m.role, m.created_at
  FROM memberships m JOIN users u ON u.id = m.user_id) AS members`;

/** ONE_TIME_PASSWORD_CHARS is the length of a new user's generated password (base62, about 143 bits). */
const ONE_TIME_PASSWORD_CHARS = 24;

function toMember(r: MemberRow): Member {
  return { userId: r.id, email: r.email, name: r.name, role: r.role, createdAt: r.created_at };
}

async function memberRow(store: Reads, workspaceId: string, userId: string): Promise<MemberRow> {
  const r = await store.get<MemberRow>(`SELECT * FROM ${MEMBERS} WHERE workspace_id = $ws AND id = $id`, { ws: workspaceId, id: userId });
  if (!r) throw new ApiError("NOT_FOUND", `User ${userId} is not a member of this workspace.`);
  return r;
}

async function owners(store: Reads, workspaceId: string): Promise<number> {
  return (await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM memberships WHERE workspace_id = $ws AND role = 'owner'", { ws: workspaceId }))!.n;
}

/**
 * membershipRefusal answers why a caller of role `actor` may not move a member from role `from` (null: not a member
 * yet) to role `to` (null: removed), or null when the move is allowed. Only an owner grants or takes away `owner`;
 * the last owner stays, so a workspace always has someone who can do that.
 */
export function membershipRefusal(actor: Role, from: Role | null, to: Role | null, ownerCount: number): ApiError | null {
  if ((from === "owner" || to === "owner") && from !== to && actor !== "owner")
    return new ApiError("FORBIDDEN", "Only an owner may grant or take away the owner role.");
  if (from === "owner" && to !== "owner" && ownerCount <= 1)
    return new ApiError("CONFLICT", "This is the workspace's last owner; make another member an owner first.");
  return null;
}

function refuseUnless(actor: Role, from: Role | null, to: Role | null, ownerCount: number): void {
  const refusal = membershipRefusal(actor, from, to, ownerCount);
  if (refusal) throw refusal;
}

/** listMembers answers one page of the workspace's members, newest membership first. */
export async function listMembers(store: Reads, workspaceId: string, query: { limit?: string; cursor?: string }): Promise<{ items: Member[]; nextCursor?: string }> {
  return selectPage(store, query, { from: MEMBERS, where: ["workspace_id = $ws"], params: { ws: workspaceId } }, toMember);
}

/**
 * addMember adds the user with that e-mail to the workspace, creating the user with a generated password when there is
 * none (answered once as `oneTimePassword`, never stored or logged in clear). 409 when they already are a member.
 */
export async function addMember(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, actor: Role, input: AddMemberBody): Promise<MemberAdded> {
  const email = checkEmail(input.email);
  refuseUnless(actor, null, input.role, 0);
  // argon2id is slow on purpose and a transaction may not await: hash before it, every time, so that a user created
  // meanwhile by someone else only means the password goes unused.
  const password = randomBase62(ONE_TIME_PASSWORD_CHARS);
  const passwordHash = await hashPassword(password);
  return store.tx(async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (user && await tx.get("SELECT 1 FROM memberships WHERE workspace_id = $ws AND user_id = $user", { ws: workspaceId, user: user.id }))
      throw new ApiError("CONFLICT", `${email} is already a member of this workspace; change their role instead.`, { details: [{ path: "/email", message: "is already a member" }] });
    let userId: string;
    if (user) {
      userId = user.id;
      await tx.run("INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ($ws, $user, $role, $now)", {
        ws: workspaceId,
        user: userId,
        role: input.role,
        now: clock.now().toISOString(),
      });
    } else {
      userId = (await createUser(tx, clock, ctx, { email, name: input.name, passwordHash, workspace: workspaceId, role: input.role, platformAdmin: false })).id;
    }
    await recordAudit(tx, clock, ctx, {
      workspaceId,
      action: "member.added",
      resourceType: "user",
      resourceId: userId,
      resourceName: email,
      metadata: { role: input.role, newUser: !user },
    });
    const member = toMember(await memberRow(tx, workspaceId, userId));
    return user ? { member } : { member, oneTimePassword: password };
  });
}

/** changeMemberRole gives a member another role; the same role again changes nothing and writes no event. */
export async function changeMemberRole(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, actor: Role, userId: string, role: Role): Promise<Member> {
  return store.tx(async (tx) => {
    // The workspace's row, locked: changes of its members take turns, so two can never both remove "another" owner.
    await lockWorkspace(tx, workspaceId);
    const r = await memberRow(tx, workspaceId, userId);
    if (r.role === role) return toMember(r);
    refuseUnless(actor, r.role, role, await owners(tx, workspaceId));
    await tx.run("UPDATE memberships SET role = $role WHERE workspace_id = $ws AND user_id = $user", { role, ws: workspaceId, user: userId });
    await recordAudit(tx, clock, ctx, {
      workspaceId,
      action: "member.role_changed",
      resourceType: "user",
      resourceId: userId,
      resourceName: r.email,
      metadata: { role, previousRole: r.role },
    });
    return toMember(await memberRow(tx, workspaceId, userId));
  });
}

/** removeMember takes a user out of the workspace. The user and their sessions remain: a session finds its workspace
 * from the memberships on every request, so it loses this workspace at once. */
export async function removeMember(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, actor: Role, userId: string): Promise<void> {
  await store.tx(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const r = await memberRow(tx, workspaceId, userId);
    refuseUnless(actor, r.role, null, await owners(tx, workspaceId));
    await tx.run("DELETE FROM memberships WHERE workspace_id = $ws AND user_id = $user", { ws: workspaceId, user: userId });
    await recordAudit(tx, clock, ctx, { workspaceId, action: "member.removed", resourceType: "user", resourceId: userId, resourceName: r.email, metadata: { role: r.role } });
  });
}
