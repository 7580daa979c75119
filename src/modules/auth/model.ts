/** auth/model: the console's sign-in body and the `me` answer (DESIGN.md 3). */
import { Type, type Static } from "@sinclair/typebox";
import { Identifier, IsoDateTime } from "../../http/schemas";
import { RoleSchema } from "../../auth/scopes";

export const SignInBody = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: false },
);
export type SignInBody = Static<typeof SignInBody>;

const WorkspaceMembership = Type.Object({ id: Identifier, name: Type.String(), role: RoleSchema });

export const SignedIn = Type.Object({ signedIn: Type.Literal(true), expiresAt: IsoDateTime });

export const SignedOut = Type.Object({ signedOut: Type.Literal(true) });

export const Me = Type.Object({
  user: Type.Object({ id: Identifier, email: Type.String(), name: Type.Union([Type.String(), Type.Null()]), platformAdmin: Type.Boolean() }),
  workspace: Type.Union([WorkspaceMembership, Type.Null()]),
  workspaces: Type.Array(WorkspaceMembership),
});
export type Me = Static<typeof Me>;
