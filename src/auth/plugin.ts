/** auth/plugin: the `auth` route option — authenticate and authorize before the body is validated — and what it adds to
 * the route's OpenAPI operation (its security requirement). */
import { Elysia } from "elysia";
import { authenticate, authorize, type AuthDeps, type AuthRequirement, type Principal } from "./principal";

/** The names of the two security schemes of spec 5.1 in the OpenAPI document. */
export const API_KEY_SCHEME = "apiKey";
export const SESSION_SCHEME = "session";

/** AUTH_EXTENSION is the operation field that carries a route's AuthRequirement as declared. */
const AUTH_EXTENSION = "x-renderd-auth";

function describeNeed(need: AuthRequirement): string {
  const scopes = need.scope ? [need.scope] : (need.anyScope ?? []);
  const who = need.platformAdmin ? "a platform administrator's console session" : need.session ? "a signed-in console session" : "an API key or a console session";
  const what = scopes.length === 0 ? "" : scopes.length === 1 ? ` holding ${scopes[0]}` : ` holding one of ${scopes.join(", ")}`;
  // spec 5.3.2 and 5.3.4: these routes refuse API keys even when the key holds the scope.
  const refused = need.session || need.platformAdmin ? "; API keys are refused" : "";
  return `Needs ${who}${what}${refused}.`;
}

/** authDetail answers the OpenAPI fields a route's requirement implies: one security alternative per scheme and scope. */
function authDetail(need: AuthRequirement) {
  const scopes = need.scope ? [need.scope] : (need.anyScope ?? []);
  const schemes = need.session || need.platformAdmin ? [SESSION_SCHEME] : [API_KEY_SCHEME, SESSION_SCHEME];
  // OpenAPI 3.1 lets an apiKey requirement list role names: here, the scope the caller must hold.
  const security = schemes.flatMap((scheme) => (scopes.length === 0 ? [{ [scheme]: [] }] : scopes.map((scope) => ({ [scheme]: [scope] }))));
  return { security, description: describeNeed(need), [AUTH_EXTENSION]: need };
}

/** authPlugin gives routes `{ auth: { scope | session | platformAdmin } }` and the resolved `principal` in the handler. */
export function authPlugin(deps: AuthDeps) {
  const principals = new WeakMap<Request, Principal>();
  return new Elysia({ name: "renderd.auth", seed: deps }).macro({
    auth: (need: AuthRequirement) => ({
      // transform runs before validation, so an anonymous caller learns nothing about the body's schema.
      async transform({ request }: { request: Request }) {
        principals.set(request, authorize(deps, request, await authenticate(deps, request), need));
      },
      resolve({ request }: { request: Request }) {
        return { principal: principals.get(request)! };
      },
      detail: authDetail(need),
    }),
  });
}

export type AuthPlugin = ReturnType<typeof authPlugin>;
