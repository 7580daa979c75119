/** Shell: the frame of every signed-in page — header (workspace switcher, account menu), navigation, the suspended
 * banner and the one <main>. */
import { useRef, type ReactNode } from "react";
import { Link, useLocation } from "wouter";
import type { Access } from "../api/access";
import { setWorkspace } from "../api/client";
import { useRenderLimits } from "../api/limits";
import { useSignOut } from "../api/session";
import { ExportButton } from "./ExportButton";

interface NavItem {
  href: string;
  label: string;
  show: (a: Access) => boolean;
}

const everyone = () => true;
const managers = (a: Access) => a.manager;

// The labels are the stable accessible names of issue 11; Webhooks and Destinations are hidden from members (spec 5.3.8).
const NAV: NavItem[] = [
  { href: "/", label: "Overview", show: everyone },
  { href: "/templates", label: "Templates", show: everyone },
  { href: "/renders", label: "Renders", show: everyone },
  { href: "/assets", label: "Assets", show: everyone },
  { href: "/api-keys", label: "API keys", show: managers },
  { href: "/webhooks", label: "Webhooks", show: managers },
  { href: "/destinations", label: "Destinations", show: managers },
  { href: "/audit", label: "Audit log", show: managers },
  { href: "/usage", label: "Usage", show: everyone },
  { href: "/limits", label: "Limits", show: everyone },
  { href: "/members", label: "Members", show: managers },
  { href: "/platform", label: "Platform", show: (a) => a.platformAdmin },
];

function WorkspaceSwitcher({ access }: { access: Access }) {
  const { workspaces, workspace } = access.me;
  if (workspaces.length < 2) return workspace ? <span className="workspace-name">{workspace.name}</span> : null;
  return (
    <label className="switcher">
      Workspace
      <select
        value={workspace?.id ?? ""}
        onChange={(e) => {
          setWorkspace(e.currentTarget.value);
          // A fresh start in the other workspace: nothing cached or half-typed from this one carries over.
          window.location.assign("/console/");
        }}
      >
        {workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name} ({w.role})
          </option>
        ))}
      </select>
    </label>
  );
}

function AccountMenu({ access }: { access: Access }) {
  const signOut = useSignOut();
  const [, navigate] = useLocation();
  const menu = useRef<HTMLDetailsElement>(null);
  return (
    <details className="dropdown account" ref={menu}>
      <summary>Account</summary>
      {/* A choice closes the menu, so that it does not stay open over the page it leads to. */}
      <ul onClick={() => menu.current?.removeAttribute("open")}>
        <li>
          <small>{access.me.user.email}</small>
        </li>
        <li>
          <Link href="/account/password">Change password</Link>
        </li>
        <li>
          <button type="button" className="link" onClick={() => signOut.mutate(undefined, { onSettled: () => navigate("/sign-in") })}>
            Sign out
          </button>
        </li>
      </ul>
    </details>
  );
}

function SuspendedBanner() {
  const limits = useRenderLimits();
  if (!limits.data?.suspended) return null;
  return (
    <div className="banner" role="alert">
      <strong>This workspace is suspended.</strong> It renders nothing and its API keys are refused; you can still read
      everything and export its data.{" "}
      <ExportButton />
    </div>
  );
}

/** Shell frames a signed-in page: header, navigation for the user's role, banner, <main>. */
export function Shell({ access, children }: { access: Access; children: ReactNode }) {
  const [location] = useLocation();
  return (
    <div className="shell">
      <header className="topbar">
        <Link href="/" className="brand">
          renderd
        </Link>
        <WorkspaceSwitcher access={access} />
        <AccountMenu access={access} />
      </header>
      <nav className="sidenav" aria-label="Console">
        <ul>
          {NAV.filter((n) => n.show(access)).map((n) => {
            const current = n.href === "/" ? location === "/" : location.startsWith(n.href);
            return (
              <li key={n.href}>
                <Link href={n.href} aria-current={current ? "page" : undefined}>
                  {n.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <main className="content">
        {access.me.workspace ? <SuspendedBanner /> : null}
        {children}
      </main>
    </div>
  );
}
