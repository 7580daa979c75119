/** auth/plugin: the `auth` route option — authenticate and authorize before the body is validated. */
import { Elysia } from "elysia";
import { authenticate, authorize, type AuthDeps, type AuthRequirement, type Principal } from "./principal";

/** authPlugin gives routes `{ auth: { scope | session | platformAdmin } }` and the resolved `principal` in the handler. */
export function authPlugin(deps: AuthDeps) {
  const principals = new WeakMap<Request, Principal>();
  return new Elysia({ name: "renderd.auth", seed: deps }).macro({
    auth: (need: AuthRequirement) => ({
      // transform runs before validation, so an anonymous caller learns nothing about the body's schema.
      transform({ request }: { request: Request }) {
        principals.set(request, authorize(deps, request, authenticate(deps, request), need));
      },
      resolve({ request }: { request: Request }) {
        return { principal: principals.get(request)! };
      },
    }),
  });
}

export type AuthPlugin = ReturnType<typeof authPlugin>;
