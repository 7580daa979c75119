/** tui/list: what every tab's list shares (k9s' habits): `/` filters by the text of the rows, ↑ ↓ PgUp PgDn select,
 * Enter opens the selected row's detail and Esc goes back; the table uses the terminal's width, and the detail shows
 * each field whole. */
import { Box, Text, type Key, useInput } from "ink";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { editLine, window } from "./edit";
import { cut } from "./format";
import { DETAIL_HINTS, LIST_HINTS, useHints } from "./hints";
import { type Colour, useColour } from "./theme";

/** Column is one column of a table: `width` characters, and the `fill` column also takes the terminal's width beyond the others. */
export interface Column<T> {
  title: string;
  width: number;
  fill?: boolean;
  text(row: T): string;
  colour?(row: T): Colour | undefined;
}

/** List is a list's state: the rows the filter keeps, the selected one, the one whose detail is open. */
export interface List<T> {
  all: T[];
  rows: T[];
  index: number;
  row: T | undefined;
  /** The row whose detail is open (looked up again in each new snapshot), or undefined. */
  opened: T | undefined;
  filter: string;
  filtering: boolean;
  /** handle takes a key for the list (filtering, selecting, opening, going back) and answers whether it used it. */
  handle(input: string, key: Key): boolean;
  close(): void;
}

/** useList keeps a list's filter, selection and open detail across snapshots, by row id; with `tail` (logs) the last row
 * is selected until another is. */
export function useList<T>(all: T[], id: (row: T) => string, text: (row: T) => string, page: number, tail = false): List<T> {
  const [filter, setFilter] = useState("");
  const [filtering, setFiltering] = useState(false);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [openedId, setOpenedId] = useState<string | null>(null);
  const needle = filter.toLowerCase();
  const rows = needle ? all.filter((r) => text(r).toLowerCase().includes(needle)) : all;
  const found = selectedId === null ? -1 : rows.findIndex((r) => id(r) === selectedId);
  const index = found >= 0 ? found : tail ? rows.length - 1 : 0;
  const row = rows[index];
  const opened = openedId === null ? undefined : all.find((r) => id(r) === openedId);
  // Keys that arrive together (a held arrow key, a paste) are handled before the next render: each moves from where the
  // one before it left the selection, not from this render's index.
  const at = useRef(index);
  at.current = index;
  const select = (i: number) => {
    const clamped = Math.max(0, Math.min(rows.length - 1, i));
    at.current = clamped;
    const next = rows[clamped];
    // Back on the last row of a tail: follow new rows again.
    setSelectedId(next === undefined || (tail && clamped >= rows.length - 1) ? null : id(next));
  };
  return {
    all,
    rows,
    index,
    row,
    opened,
    filter,
    filtering,
    close: () => setOpenedId(null),
    handle(input, key) {
      if (filtering) {
        if (key.return) setFiltering(false);
        else if (key.escape) {
          setFilter("");
          setFiltering(false);
        } else setFilter((typed) => editLine(typed, input, key));
        return true;
      }
      if (opened) {
        if (!key.escape) return false;
        setOpenedId(null);
        return true;
      }
      if (key.upArrow) select(at.current - 1);
      else if (key.downArrow) select(at.current + 1);
      else if (key.pageUp) select(at.current - page);
      else if (key.pageDown) select(at.current + page);
      else if (input === "/") setFiltering(true);
      else if (key.return && rows[at.current]) setOpenedId(id(rows[at.current]!));
      else return false;
      return true;
    },
  };
}

/** useBrowse is the list of a screen with no actions of its own (Webhooks, Audit): it takes the screen's keys while
 * `active`, holds the app's keys (`capture`) while a filter is typed, and offers the list's or the detail's keys. */
export function useBrowse<T>(all: T[], id: (row: T) => string, text: (row: T) => string, screen: { height: number; active: boolean; capture(on: boolean): void }): List<T> {
  const { height, active, capture } = screen;
  const list = useList(all, id, text, height - 3);
  useEffect(() => capture(list.filtering), [list.filtering, capture]);
  useHints(list.opened ? DETAIL_HINTS : LIST_HINTS);
  useInput((input, key) => void list.handle(input, key), { isActive: active });
  return list;
}

/** WIDE is where a table has room for more than the fill column's text: below it, the fill column takes all the room. */
const WIDE = 120;

/** widths answers each column's width at `total` characters (one space between columns): each its `width`, then the
 * room left to the `fill` column; on a wide terminal (WIDE columns and more) first, from left to right, to the columns
 * whose texts in `rows` are longer, up to their longest — so a slug, a key's name or a log message shows whole. */
export function widths<T>(columns: Column<T>[], total: number, rows: T[] = []): number[] {
  let spare = total - (columns.reduce((sum, c) => sum + c.width, 0) + columns.length - 1);
  const sizes = columns.map((c) => {
    if (c.fill || spare <= 0 || total < WIDE) return c.width;
    const more = Math.min(spare, Math.max(0, ...rows.map((r) => c.text(r).length - c.width)));
    spare -= more;
    return c.width + more;
  });
  return sizes.map((w, i) => (columns[i]!.fill ? w + Math.max(0, spare) : w));
}

/** FilterLine shows the filter (or how to start one) and how many rows it keeps. */
export function FilterLine<T>({ list, noun, extra }: { list: List<T>; noun: string; extra?: ReactNode }) {
  return (
    <Text wrap="truncate">
      {"Filter: "}
      <Text inverse={list.filtering}>{list.filter || (list.filtering ? " " : "(press /)")}</Text>
      <Text dimColor>{`   ${list.rows.length} of ${list.all.length} ${noun}`}</Text>
      {extra}
    </Text>
  );
}

/** Table draws the columns' titles and the rows that fit in `height` lines around the selected one. */
export function Table<T>({ list, columns, width, height, id, empty }: { list: List<T>; columns: Column<T>[]; width: number; height: number; id(row: T): string; empty: string }) {
  const colour = useColour();
  const sizes = widths(columns, width, list.all);
  const { start, end } = window(list.rows.length, list.index, Math.max(1, height - 1));
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate">
        {columns.map((c, i) => cut(c.title, sizes[i]!)).join(" ")}
      </Text>
      {list.rows.length === 0 ? <Text dimColor>{empty}</Text> : null}
      {list.rows.slice(start, end).map((row, i) => (
        <Text key={id(row)} inverse={start + i === list.index} wrap="truncate">
          {columns.map((c, j) => (
            <Text key={c.title} color={colour(c.colour?.(row))}>
              {cut(c.text(row), sizes[j]!) + (j < columns.length - 1 ? " " : "")}
            </Text>
          ))}
        </Text>
      ))}
    </Box>
  );
}

/** Field is one line of a detail: its label, its whole value (wrapped, never cut), and a colour. */
export type Field = [label: string, value: string, colour?: Colour];

/** Detail shows one row's fields, each value whole; Esc goes back to the list. */
export function Detail({ title, fields, children }: { title: string; fields: Field[]; children?: ReactNode }) {
  const colour = useColour();
  const label = Math.max(...fields.map(([l]) => l.length)) + 2;
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate">{title}</Text>
      {fields.map(([name, value, c]) => (
        <Box key={name}>
          <Box width={label} flexShrink={0}>
            <Text dimColor>{name}</Text>
          </Box>
          <Text wrap="wrap" color={c ? colour(c) : undefined}>
            {value || "-"}
          </Text>
        </Box>
      ))}
      {children}
    </Box>
  );
}
