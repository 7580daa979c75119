/** tui/edit: one-line text editing from Ink key presses (Ink has no text input of its own). */
import type { Key } from "ink";

/** editLine answers `value` after one key press: typed characters append, Backspace and Delete remove the last one. */
export function editLine(value: string, input: string, key: Key): string {
  if (key.backspace || key.delete) return value.slice(0, -1);
  if (key.ctrl || key.meta || key.return || key.escape || key.tab || key.upArrow || key.downArrow) return value;
  return value + input.replace(/[\x00-\x1f\x7f]/g, "");
}

/** window answers the slice of `count` rows, at most `size` long, that keeps row `selected` visible. */
export function window(count: number, selected: number, size: number): { start: number; end: number } {
  const start = Math.max(0, Math.min(selected - Math.floor(size / 2), count - size));
  return { start, end: Math.min(count, start + size) };
}
