/** App: the routes of the console, behind the sign-in; a session that ends sends the user to sign in and back. */
import { lazy, Suspense, useEffect, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Redirect, Route, Switch, useLocation } from "wouter";
import { accessOf } from "./api/access";
import { ApiFailure, currentWorkspace, onSessionExpired, setWorkspace } from "./api/client";
import { useMe } from "./api/session";
import { ErrorNotice } from "./components/ErrorNotice";
import { Shell } from "./components/Shell";
import { ChangePassword } from "./features/auth/ChangePassword";
import { SignIn } from "./features/auth/SignIn";
import { ApiKeysPage } from "./features/api-keys/ApiKeysPage";
import { AssetsPage } from "./features/assets/AssetsPage";
import { AuditPage } from "./features/audit/AuditPage";
import { LimitsPage } from "./features/limits/LimitsPage";
import { MembersPage } from "./features/members/MembersPage";
import { OverviewPage } from "./features/overview/OverviewPage";
import { PlatformPage } from "./features/platform/PlatformPage";
import { RenderPage, RendersPage } from "./features/renders/RendersPage";
import { TemplatesPage } from "./features/templates/TemplatesPage";
import { UsagePage } from "./features/usage/UsagePage";
import { WebhookPage, WebhooksPage } from "./features/webhooks/WebhooksPage";
import { DestinationPage, DestinationsPage } from "./features/destinations/DestinationsPage";

// The template page carries CodeMirror; it is loaded only when a template is opened.
const TemplatePage = lazy(() => import("./features/templates/TemplatePage"));

/** here answers the console path the user is on, to come back to after signing in again. */
function here(): string {
  return window.location.pathname.replace(/^\/console/, "") + window.location.search || "/";
}

function SignedIn() {
  const me = useMe();
  const client = useQueryClient();
  useEffect(() => {
    // A workspace kept from an earlier session that the user no longer belongs to (404) falls back to their first.
    if (me.error instanceof ApiFailure && me.error.status === 404 && currentWorkspace()) {
      setWorkspace(null);
      void client.resetQueries({ queryKey: ["me"] });
    }
  }, [me.error, client]);
  if (me.isPending) return <main aria-busy="true">Loading…</main>;
  if (me.isError) {
    if (me.error instanceof ApiFailure && me.error.status === 401) return <Redirect to={`/sign-in?next=${encodeURIComponent(here())}`} />;
    return (
      <main>
        <ErrorNotice error={me.error} />
      </main>
    );
  }
  const access = accessOf(me.data);
  return (
    <Shell access={access}>
      <Suspense fallback={<p aria-busy="true">Loading…</p>}>
        <Switch>
          <Route path="/" component={OverviewPage} />
          <Route path="/templates" component={TemplatesPage} />
          <Route path="/templates/:id">{(p) => <TemplatePage id={p.id} />}</Route>
          <Route path="/renders" component={RendersPage} />
          <Route path="/renders/:id">{(p) => <RenderPage id={p.id} />}</Route>
          <Route path="/assets" component={AssetsPage} />
          <Route path="/usage" component={UsagePage} />
          <Route path="/limits">{() => <LimitsPage access={access} />}</Route>
          <Route path="/account/password" component={ChangePassword} />
          {access.manager ? <Route path="/api-keys" component={ApiKeysPage} /> : null}
          {access.manager ? <Route path="/webhooks" component={WebhooksPage} /> : null}
          {access.manager ? <Route path="/webhooks/:id">{(p) => <WebhookPage id={p.id} />}</Route> : null}
          {access.manager ? <Route path="/destinations" component={DestinationsPage} /> : null}
          {access.manager ? <Route path="/destinations/:id">{(p) => <DestinationPage id={p.id} />}</Route> : null}
          {access.manager ? <Route path="/audit" component={AuditPage} /> : null}
          {access.manager ? <Route path="/members" component={MembersPage} /> : null}
          {access.platformAdmin ? <Route path="/platform" component={PlatformPage} /> : null}
          <Route>
            <h1>Page not found</h1>
            <p>
              There is no such page, or your role does not show it. <a href="/console/">Go to the overview.</a>
            </p>
          </Route>
        </Switch>
      </Suspense>
    </Shell>
  );
}

/** App routes between the sign-in page and the signed-in console, and handles session expiry. */
export function App() {
  const client = useQueryClient();
  const [, navigate] = useLocation();
  const [expired, setExpired] = useState(false);
  useEffect(() => {
    onSessionExpired(() => {
      if (window.location.pathname.startsWith("/console/sign-in")) return;
      setExpired(true);
      client.removeQueries();
      navigate(`/sign-in?next=${encodeURIComponent(here())}`, { replace: true });
    });
  }, [client, navigate]);
  return (
    <Switch>
      <Route path="/sign-in">
        <SignIn expired={expired} />
      </Route>
      <Route>
        <SignedIn />
      </Route>
    </Switch>
  );
}
