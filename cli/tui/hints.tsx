/** tui/hints: the keys that work on the current screen, which the screen declares and the app shows — always in the
 * footer (short), and whole under `?` with the keys that work everywhere (lazygit's and k9s' habit). */
import { createContext, useContext, useEffect } from "react";

/** Hint is one key: what the footer says of it, and what `?` says. */
export interface Hint {
  key: string;
  short: string;
  long: string;
}

const HintsContext = createContext<(hints: Hint[]) => void>(() => {});

/** HintsProvider receives each screen's keys. */
export const HintsProvider = HintsContext.Provider;

/** useHints declares the keys that work on the screen now; an action that cannot apply is left out by the caller. */
export function useHints(hints: Hint[]): void {
  const set = useContext(HintsContext);
  const signature = hints.map((h) => `${h.key}\u0000${h.long}`).join("\u0001");
  // The signature, not the array: a screen makes a new array at each render.
  useEffect(() => set(hints), [signature, set]);
}

/** LIST_HINTS are the keys every list shares (list.tsx). */
export const LIST_HINTS: Hint[] = [
  { key: "↑↓", short: "", long: "select a row (PgUp PgDn a page)" },
  { key: "Enter", short: "detail", long: "open the selected row's detail (Esc goes back)" },
  { key: "/", short: "filter", long: "filter the rows by their text (Enter keeps, Esc clears)" },
];

/** DETAIL_HINTS are the keys of every detail. */
export const DETAIL_HINTS: Hint[] = [{ key: "Esc", short: "back", long: "back to the list" }];
