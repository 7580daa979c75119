/** members/model: a workspace's members (DESIGN.md 3 roles) and the bodies of /v1/members (docs/members.md). */
import { Type, type Static } from "@sinclair/typebox";
import { Identifier, IsoDateTime, PageQueryFields } from "../../http/schemas";
import { RoleSchema } from "../../auth/scopes";

const closed = { additionalProperties: false } as const;

/** Member is one user's membership of the workspace; `createdAt` is when they joined it. */
export const Member = Type.Object({
  userId: Identifier,
  email: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  role: RoleSchema,
  createdAt: IsoDateTime,
});
export type Member = Static<typeof Member>;

/** MemberAdded answers POST /v1/members; `oneTimePassword` only when the user was created, shown this once. */
export const MemberAdded = Type.Object({ member: Member, oneTimePassword: Type.Optional(Type.String({ minLength: 1 })) });
export type MemberAdded = Static<typeof MemberAdded>;

// The e-mail bound is the sign-in body's; its form is checked by users/service (400 at /email).
export const AddMemberBody = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 320 }), role: RoleSchema, name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
  closed,
);
export type AddMemberBody = Static<typeof AddMemberBody>;

export const ChangeRoleBody = Type.Object({ role: RoleSchema }, closed);

export const MemberParams = Type.Object({ userId: Identifier }, closed);

export const MemberListQuery = Type.Object({ ...PageQueryFields }, closed);
