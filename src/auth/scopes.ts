/** auth/scopes: the scope values of spec 5.2 and what each workspace role holds (DESIGN.md 3). */
import type { Static } from "@sinclair/typebox";
import { literalUnion } from "../lib/literals";

export const SCOPES = [
  "template:read",
  "template:write",
  "template:publish",
  "template:content",
  "render:create",
  "render:read",
  "render:cancel",
  "asset:manage",
  "audit:read",
  "usage:read",
  "webhook:manage",
  "certificate:manage",
  "destination:manage",
  "admin:manage",
] as const;

export const ScopeSchema = literalUnion(SCOPES);
export type Scope = Static<typeof ScopeSchema>;

export const ROLES = ["owner", "admin", "member"] as const;
export const RoleSchema = literalUnion(ROLES);
export type Role = Static<typeof RoleSchema>;

const MEMBER_SCOPES: readonly Scope[] = SCOPES.filter(
  (s) => s.startsWith("template:") || s.startsWith("render:") || s === "asset:manage" || s === "usage:read",
);

/** scopesOfRole answers the scopes a workspace member of that role holds. */
export function scopesOfRole(role: Role): readonly Scope[] {
  return role === "member" ? MEMBER_SCOPES : SCOPES;
}
