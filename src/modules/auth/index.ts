/** auth routes: POST /v1/auth/sign-in, POST /v1/auth/sign-out, GET /v1/auth/me, POST /v1/auth/password. */
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { ApiError } from "../../errors";
import { RateLimiter } from "../../http/rate-limit";
import type { AuthPlugin } from "../../auth/plugin";
import { consoleOrigin, isConsoleOrigin } from "../../auth/principal";
import { signCookieValue } from "../../auth/secrets";
import { ChangePasswordBody, Me, PasswordChanged, SignedIn, SignedOut, SignInBody } from "./model";
import { changePassword, describeSession, signIn, signOut } from "./service";
import type { RequestMeta } from "../../http/request-meta";
import { requestPath } from "../../http/request-target";

// Signing out and changing one's password act on the user, not on a workspace: a suspension does not stop them (spec 3.4).
const userLevel = { session: true, whileSuspended: true } as const;

// spec 8.3.2: the sign-in rate is fixed, not configurable; it slows password guessing per address.
const SIGN_IN_PER_MINUTE = 10;
const SIGN_IN_PATH = "/v1/auth/sign-in";
const PASSWORD_PATH = "/v1/auth/password";
// The routes whose every request is a password guess, and what the 429 calls them.
const PASSWORD_ATTEMPTS: Readonly<Record<string, string>> = { [SIGN_IN_PATH]: "sign-in", [PASSWORD_PATH]: "password" };

/** authRoutes mounts the console session endpoints. */
export function authRoutes(app: AppContext, auth: AuthPlugin, meta: RequestMeta) {
  const limiter = new RateLimiter({
    scope: "sign-in",
    perMinute: SIGN_IN_PER_MINUTE,
    now: () => app.clock.now().getTime(),
    counters: app.counters,
    onUnavailable: (err) => app.log.warn({ err }, "rate counters unavailable; counting in this process"),
  });
  const secure = app.config.publicUrl.startsWith("https:");
  const cookie = (value: string, maxAgeSeconds: number) =>
    `${app.config.sessionCookieName}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;

  return new Elysia({ normalize: false })
    .use(auth)
    // onRequest runs before the body is read: every attempt counts, a malformed, too deep or invalid body too (issue 16).
    // A password change's current password is a password guess like a sign-in: the same limiter counts both.
    .onRequest(async ({ request }) => {
      const attempt = request.method === "POST" ? PASSWORD_ATTEMPTS[requestPath(request)] : undefined;
      if (attempt === undefined) return;
      const retryAfter = await limiter.hit(meta.of(request).clientAddress);
      if (retryAfter !== null) throw new ApiError("RATE_LIMITED", `Too many ${attempt} attempts; try again later.`, { retryAfter });
    })
    .post(
      SIGN_IN_PATH,
      async ({ body, request, set }) => {
        const { requestId } = meta.of(request);
        const origin = request.headers.get("origin");
        // A login from another site's form would sign the victim in as the attacker (login CSRF).
        if (origin !== null && !isConsoleOrigin(app.config, origin))
          throw new ApiError("FORBIDDEN", `Sign-in must come from Origin ${consoleOrigin(app.config)}, the console's; if the console is opened at another address, set PUBLIC_URL to it.`);
        const session = await signIn(app.store, app.clock, requestId, body.email, body.password);
        set.headers["set-cookie"] = cookie(signCookieValue(app.config.secretKey, session.token), Math.floor((session.expiresAt.getTime() - app.clock.now().getTime()) / 1000));
        return { signedIn: true as const, expiresAt: session.expiresAt.toISOString() };
      },
      { body: SignInBody, response: SignedIn },
    )
    .post(
      "/v1/auth/sign-out",
      async ({ principal, set }) => {
        if (principal.kind === "session") await signOut(app.store, principal.sessionId);
        set.headers["set-cookie"] = cookie("", 0);
        return { signedOut: true as const };
      },
      { auth: userLevel, response: SignedOut },
    )
    .get(
      "/v1/auth/me",
      ({ principal }) => {
        if (principal.kind !== "session") throw new ApiError("FORBIDDEN", "This operation needs a signed-in console session.");
        return describeSession(principal);
      },
      { auth: { session: true }, response: Me },
    )
    .post(
      PASSWORD_PATH,
      async ({ body, principal, request }) => {
        if (principal.kind !== "session") throw new ApiError("FORBIDDEN", "This operation needs a signed-in console session.");
        return changePassword(app.store, app.clock, meta.change(request, principal), principal, body);
      },
      { auth: userLevel, body: ChangePasswordBody, response: PasswordChanged },
    );
}
