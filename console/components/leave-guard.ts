/** leave-guard: a page with unsaved work asks before the console navigates away from it. Every in-console navigation
 * (a link, a redirect after an action) goes through the router's `aroundNav`, which asks the guard a page has set. */
import { useEffect, useRef } from "react";
import type { AroundNavHandler } from "wouter";

/** LeaveGuard is asked before a navigation to `to`; it calls `proceed` if and when the navigation may go on. */
export type LeaveGuard = (to: string, proceed: () => void) => void;

let guard: LeaveGuard | null = null;

/** guardedNavigation is the router's aroundNav: a navigation goes on at once unless a page's guard holds it. */
export const guardedNavigation: AroundNavHandler = (navigate, to, options) => {
  if (!guard || to === window.location.pathname + window.location.search) return navigate(to, options);
  guard(to, () => navigate(to, options));
};

/** useLeaveGuard makes `ask` the guard while `active` (and the browser's own prompt guard a reload or a closed tab). */
export function useLeaveGuard(active: boolean, ask: LeaveGuard): void {
  const latest = useRef(ask);
  latest.current = ask;
  useEffect(() => {
    if (!active) return;
    const mine: LeaveGuard = (to, proceed) => latest.current(to, proceed);
    guard = mine;
    const unload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", unload);
    return () => {
      if (guard === mine) guard = null;
      window.removeEventListener("beforeunload", unload);
    };
  }, [active]);
}
