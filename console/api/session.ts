/** api/session: who is signed in (`GET /v1/auth/me`), sign-in, sign-out and the password change. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ChangePasswordBody, Me, PasswordChanged, SignInBody } from "../../src/modules/auth/model";
import { api, currentWorkspace } from "./client";
import { useRefreshingMutation } from "./mutation";

/** useMe answers the signed-in user and the workspace the console acts on. */
export function useMe() {
  return useQuery({
    queryKey: ["me", currentWorkspace()],
    queryFn: () => api<Me>("/v1/auth/me", { expiry: false }),
    retry: false,
  });
}

/** useSignIn signs in with e-mail and password; the session cookie is set by the answer. */
export function useSignIn() {
  return useRefreshingMutation(["me"], (body: SignInBody) => api<{ signedIn: true }>("/v1/auth/sign-in", { method: "POST", body, expiry: false }));
}

/** useSignOut ends the session and forgets every answer cached for it. */
export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api<{ signedOut: true }>("/v1/auth/sign-out", { method: "POST", expiry: false }),
    onSettled: () => client.clear(),
  });
}

/** useChangePassword changes the signed-in user's password (POST /v1/auth/password). */
export function useChangePassword() {
  return useMutation({
    mutationFn: (body: ChangePasswordBody) =>
      api<PasswordChanged>("/v1/auth/password", { method: "POST", body }),
  });
}
