/** tui/screens/logs: serve's log lines, followed live from the internal port (/internal/logs); `l` cycles the lowest
 * level shown, `/` filters by text, Enter opens a line with every field. The newest line stays selected (followed)
 * until another is selected; selecting the last one follows again. */
import { Box, Text, useInput } from "ink";
import { useEffect, useState } from "react";
import { clockTime } from "../format";
import { DETAIL_HINTS, LIST_HINTS, useHints } from "../hints";
import { type Column, Detail, FilterLine, Table, useList } from "../list";
import type { LogLine } from "../live";
import type { Colour } from "../theme";
import type { ScreenProps } from "./screen";

// The lines kept while the tab is open; serve keeps its last 500 and sends them first.
const KEPT = 2000;

/** LEVELS are pino's, each with its name; the filter shows a level and those above it. */
const LEVELS: [number, string][] = [
  [10, "trace"],
  [20, "debug"],
  [30, "info"],
  [40, "warn"],
  [50, "error"],
  [60, "fatal"],
];
const levelName = (level: number) => [...LEVELS].reverse().find(([n]) => level >= n)?.[1] ?? String(level);
const levelColour = (level: number): Colour | undefined => (level >= 50 ? "red" : level >= 40 ? "yellow" : level <= 20 ? "gray" : undefined);
/** The filter's steps: every line, then debug and up, info and up, warn and up, error and up. */
const FILTERS = [10, 20, 30, 40, 50];

type Numbered = LogLine & { n: number };

const fieldsText = (line: LogLine) =>
  Object.entries(line.fields)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");

const COLUMNS: Column<Numbered>[] = [
  { title: "TIME", width: 8, text: (l) => clockTime(new Date(l.time).toISOString()) },
  { title: "LEVEL", width: 5, text: (l) => levelName(l.level), colour: (l) => levelColour(l.level) },
  { title: "MESSAGE", width: 24, text: (l) => l.msg },
  { title: "FIELDS", width: 39, fill: true, text: fieldsText },
];

/** Logs is tab 7. */
export function Logs({ snapshot, source, capture, width, height, active }: ScreenProps) {
  const [lines, setLines] = useState<Numbered[]>([]);
  const [minimum, setMinimum] = useState(10);
  useEffect(() => {
    let n = 0;
    return source.logs(
      (line) => setLines((kept) => [...kept.slice(1 - KEPT), { ...line, n: n++ }]),
      () => setLines([]),
    );
  }, [source]);
  const shown = lines.filter((l) => l.level >= minimum);
  const list = useList(shown, (l) => String(l.n), (l) => `${levelName(l.level)} ${l.msg} ${fieldsText(l)}`, height - 3, true);
  useEffect(() => capture(list.filtering), [list.filtering, capture]);
  useHints(list.opened ? DETAIL_HINTS : [...LIST_HINTS, { key: "l", short: "level", long: "cycle the lowest level shown: all, debug, info, warn, error" }]);
  useInput(
    (input, key) => {
      if (list.handle(input, key) || list.opened) return;
      if (input === "l") setMinimum(FILTERS[(FILTERS.indexOf(minimum) + 1) % FILTERS.length]!);
    },
    { isActive: active },
  );

  const line = list.opened;
  if (line)
    return (
      <Detail
        title={`Log line at ${new Date(line.time).toISOString()}`}
        fields={[["Level", levelName(line.level), levelColour(line.level)], ["Message", line.msg], ...Object.entries(line.fields).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)])]}
      />
    );
  const level = minimum === 10 ? "all (l)" : `${levelName(minimum)} and up (l)`;
  return (
    <Box flexDirection="column">
      <FilterLine list={list} noun="lines" extra={<Text>{`   Level: ${level}`}</Text>} />
      <Table
        list={list}
        columns={COLUMNS}
        width={width}
        height={height - 1}
        id={(l) => String(l.n)}
        empty={snapshot.live ? "No line yet at this level." : `serve is not running: its lines are followed from ${source.internalAddress} once it is.`}
      />
    </Box>
  );
}
