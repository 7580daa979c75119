/** api/access: what the signed-in user may see in the chosen workspace, from `GET /v1/auth/me` (spec 5.2, 5.3.8). */
import type { Me } from "../../src/modules/auth/model";

/** Access is the signed-in user's standing in the workspace the console acts on. */
export interface Access {
  me: Me;
  /** manager: an owner or admin of the workspace (`admin:manage`): keys, webhooks, audit log, members. */
  manager: boolean;
  platformAdmin: boolean;
}

/** accessOf derives the user's standing from the `me` answer. */
export function accessOf(me: Me): Access {
  const role = me.workspace?.role;
  return { me, manager: role === "owner" || role === "admin", platformAdmin: me.user.platformAdmin };
}
