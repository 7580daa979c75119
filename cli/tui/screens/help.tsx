/** tui/screens/help: every key that works on the current screen, then those that work everywhere (`?`). */
import { Box, Text } from "ink";
import type { Hint } from "../hints";

function Keys({ hints }: { hints: Hint[] }) {
  return hints.map((h) => <Text key={h.key} wrap="truncate">{`  ${h.key.padEnd(7)} ${h.long}`}</Text>);
}

/** Help lists the keys of `tab` as it is now (an action that cannot apply is not listed) and the global ones. */
export function Help({ tab, screen, global }: { tab: string; screen: Hint[]; global: Hint[] }) {
  return (
    <Box flexDirection="column">
      <Text bold>{`Keys on ${tab} now`}</Text>
      {screen.length ? <Keys hints={screen} /> : <Text dimColor>  none but the keys below</Text>}
      <Text bold>Everywhere</Text>
      <Keys hints={global} />
      <Text dimColor>? or Esc closes this. Changes are audited as system/cli, like the renderd CLI's.</Text>
    </Box>
  );
}
