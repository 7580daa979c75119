/** tui/screens/screen: what every screen is given by the app. */
import { ApiError } from "../../../src/errors";
import type { Actions } from "../actions";
import type { Snapshot } from "../data";
import type { Source } from "../source";

export interface ScreenProps {
  snapshot: Snapshot;
  source: Source;
  actions: Actions;
  /** capture tells the app that keys go to the screen alone now (a filter, a form, a question): the global keys are off. */
  capture(on: boolean): void;
  reload(): void;
  /** The columns and lines the screen may use. */
  width: number;
  height: number;
  /** say shows one message on the app's message line (an answer, a question, a refusal). */
  say(message: string): void;
  /** False while the help or another question covers the screen: it takes no keys then. */
  active: boolean;
}

/** problem answers an error as the operator reads it: the API's message and the fields it names. */
export function problem(e: unknown): string {
  if (!(e instanceof ApiError)) return (e as Error).message;
  const detail = e.details?.map((d) => (d.path ? `${d.path.replace(/^\//, "")}: ${d.message}` : d.message)).join("; ");
  return `${e.message}${detail ? ` (${detail})` : ""}`;
}
