/** members routes (docs/members.md): listing takes `admin:manage` from a session or an API key; adding, changing and
 * removing members need a console session with `admin:manage`, as API key management does (spec 5.3.2). */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { ApiError } from "../../errors";
import type { AuthPlugin } from "../../auth/plugin";
import { workspaceOf, type Principal } from "../../auth/principal";
import type { Role } from "../../auth/scopes";
import { Page } from "../../http/schemas";
import type { RequestMeta } from "../../http/request-meta";
import { AddMemberBody, ChangeRoleBody, Member, MemberAdded, MemberListQuery, MemberParams } from "./model";
import { addMember, changeMemberRole, listMembers, removeMember } from "./service";

const manage = { scope: "admin:manage", session: true } as const;

// The owner rules depend on the caller's role, which only a session has; `manage` has made sure it is one.
function roleOf(principal: Principal): Role {
  if (principal.kind !== "session" || !principal.role) throw new ApiError("FORBIDDEN", "This operation needs a signed-in console session; API keys are refused here.");
  return principal.role;
}

/** memberRoutes mounts /v1/members. */
export function memberRoutes(app: AppContext, auth: AuthPlugin, meta: RequestMeta) {
  return new Elysia({ normalize: false })
    .use(auth)
    .get("/v1/members", ({ query, principal }) => listMembers(app.store, workspaceOf(principal), query), {
      auth: { scope: "admin:manage" },
      query: MemberListQuery,
      response: Page(Member),
    })
    .post(
      "/v1/members",
      async ({ body, principal, request, set }) => {
        const added = await addMember(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), roleOf(principal), body);
        set.status = 201;
        return added;
      },
      { auth: manage, body: AddMemberBody, response: { 201: MemberAdded } },
    )
    .patch(
      "/v1/members/:userId",
      ({ params, body, principal, request }) =>
        changeMemberRole(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), roleOf(principal), params.userId, body.role),
      { auth: manage, params: MemberParams, body: ChangeRoleBody, response: Member },
    )
    .delete(
      "/v1/members/:userId",
      async ({ params, principal, request }) => {
        await removeMember(app.store, app.clock, meta.change(request, principal), workspaceOf(principal), roleOf(principal), params.userId);
        return new Response(null, { status: 204 });
      },
      { auth: manage, params: MemberParams, detail: { responses: { 204: { description: "The member was removed" } } } },
    );
}
