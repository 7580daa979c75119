/** tui/screens/help: the keys, shown by `?`. */
import { Box, Text } from "ink";

const KEYS: [string, string][] = [
  ["1 2 3 4, Tab", "Overview, Workspaces, Renders, Webhooks"],
  ["↑ ↓", "select a row"],
  ["/", "Workspaces: search name or slug (Enter keeps, Esc clears)"],
  ["s", "Workspaces: suspend or restore the selected one (y confirms)"],
  ["e", "Workspaces: edit allowances (↑ ↓ field, Enter saves, Esc)"],
  ["k", "Workspaces: create an API key (its secret is shown once)"],
  ["w", "Renders: filter by workspace slug (empty: all)"],
  ["f", "Renders: cycle the status filter"],
  ["c", "Renders: cancel the selected render (y confirms)"],
  ["?", "show or hide these keys"],
  ["q, Ctrl-C", "quit"],
];

/** Help lists every key. */
export function Help() {
  return (
    <Box flexDirection="column">
      <Text bold>Keys</Text>
      {KEYS.map(([key, what]) => (
        <Text key={key} wrap="truncate">{`${key.padEnd(14)} ${what}`}</Text>
      ))}
      <Text dimColor>Changes are audited as system/cli, like the renderd CLI's.</Text>
    </Box>
  );
}
