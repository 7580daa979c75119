/** auth/model: the console's sign-in body and the `me` answer (DESIGN.md 3). */
import { Type, type Static } from "@sinclair/typebox";
import { Identifier, IsoDateTime } from "../../http/schemas";
import { RoleSchema } from "../../auth/scopes";
import { PASSWORD_MAX_LENGTH, PASSWORD_RULE } from "../../lib/passwords";

export const SignInBody = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: false },
);
export type SignInBody = Static<typeof SignInBody>;

/** ChangePasswordBody is POST /v1/auth/password; the new password's rule is checked by the service, so its message can say it. */
export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
    newPassword: Type.String({ maxLength: PASSWORD_MAX_LENGTH, description: `${PASSWORD_RULE}, not the current password` }),
  },
  { additionalProperties: false },
);
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;

export const PasswordChanged = Type.Object({ passwordChanged: Type.Literal(true) });
export type PasswordChanged = Static<typeof PasswordChanged>;

const WorkspaceMembership = Type.Object({ id: Identifier, name: Type.String(), role: RoleSchema });

export const SignedIn = Type.Object({ signedIn: Type.Literal(true), expiresAt: IsoDateTime });

export const SignedOut = Type.Object({ signedOut: Type.Literal(true) });

export const Me = Type.Object({
  user: Type.Object({ id: Identifier, email: Type.String(), name: Type.Union([Type.String(), Type.Null()]), platformAdmin: Type.Boolean() }),
  workspace: Type.Union([WorkspaceMembership, Type.Null()]),
  workspaces: Type.Array(WorkspaceMembership),
});
export type Me = Static<typeof Me>;
