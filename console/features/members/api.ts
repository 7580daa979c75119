/** members/api: TanStack Query hooks for /v1/members (owners and admins, `admin:manage`). */
import type { Role } from "../../../src/auth/scopes";
import type { AddMemberBody, Member, MemberAdded } from "../../../src/modules/members/model";
import { api, currentWorkspace, type Page } from "../../api/client";
import { useRefreshingMutation } from "../../api/mutation";
import { usePage } from "../../api/page";

const key = () => ["members", currentWorkspace()];

/** useMembers lists one page of the workspace's members. */
export function useMembers(cursor?: string) {
  return usePage<Page<Member>>(key(), "/v1/members", { cursor, limit: 50 });
}

/** useAddMember adds a user by e-mail; a new user's one-time password is in the answer, shown once. */
export function useAddMember() {
  return useRefreshingMutation(key(), (body: AddMemberBody) => api<MemberAdded>("/v1/members", { method: "POST", body }));
}

/** useMemberAction changes a member's role or removes the member. */
export function useMemberAction() {
  return useRefreshingMutation(key(), async ({ userId, role }: { userId: string; role: Role | null }): Promise<unknown> =>
    role ? api<Member>(`/v1/members/${userId}`, { method: "PATCH", body: { role } }) : api<void>(`/v1/members/${userId}`, { method: "DELETE" }));
}
