/** draft/history: undo and redo as a stack of drafts (pdfme's Designer keeps its history the same way). Typing in one
 * field is one step, not one per key: a change with the same key as the one before it, soon after, replaces it. */

/** History is the drafts before the present one, the present one, and those undone after it. */
export interface History<T> {
  past: T[];
  present: T;
  future: T[];
  /** The key and time of the last change, to merge a run of keystrokes in one field into one step. */
  last?: { key: string; at: number };
}

// A run of changes to one field within this long of each other is one step.
const MERGE_MS = 1_000;
// Older steps are dropped beyond this many; a draft is small, but a long session makes many.
const MAX_STEPS = 200;

/** begin starts a history at a draft, with nothing to undo. */
export function begin<T>(present: T): History<T> {
  return { past: [], present, future: [] };
}

/** change records a new present; `key` names what was edited (a field of a node), merging a quick run of changes to it. */
export function change<T>(history: History<T>, next: T, key: string | undefined, now: number): History<T> {
  if (next === history.present) return history;
  const last = key ? { key, at: now } : undefined;
  if (key && history.last?.key === key && now - history.last.at < MERGE_MS) return { ...history, present: next, future: [], last };
  return { past: [...history.past, history.present].slice(-MAX_STEPS), present: next, future: [], last };
}

/** undo steps back one change, if there is one. */
export function undo<T>(history: History<T>): History<T> {
  const previous = history.past.at(-1);
  if (previous === undefined) return history;
  return { past: history.past.slice(0, -1), present: previous, future: [history.present, ...history.future] };
}

/** redo steps forward one undone change, if there is one. */
export function redo<T>(history: History<T>): History<T> {
  const [next, ...rest] = history.future;
  if (next === undefined) return history;
  return { past: [...history.past, history.present], present: next, future: rest };
}
