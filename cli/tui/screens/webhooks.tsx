/** tui/screens/webhooks: endpoints whose deliveries are failing, with the next attempt's time. */
import { Box, Text } from "ink";
import type { Snapshot } from "../data";
import { clockTime, cut } from "../format";
import { useColour } from "../theme";

/** Webhooks is tab 4. */
export function Webhooks({ snapshot }: { snapshot: Snapshot }) {
  const colour = useColour();
  const rows = snapshot.endpoints;
  return (
    <Box flexDirection="column">
      <Text bold>{`${cut("WORKSPACE", 12)} ${cut("URL", 30)} ${cut("PEND", 5)} ${cut("FAIL", 5)} NEXT (UTC)`}</Text>
      {rows.length === 0 ? <Text dimColor>No endpoint has failing deliveries.</Text> : null}
      {rows.slice(0, 8).map((e) => (
        <Box key={e.id} flexDirection="column">
          <Text wrap="truncate">
            {`${cut(e.workspace, 12)} ${cut(e.url, 30)} ${cut(String(e.pending), 5)} `}
            <Text color={e.failed ? colour("red") : undefined}>{cut(String(e.failed), 5)}</Text>
            {` ${clockTime(e.nextAttemptAt)}${e.enabled ? "" : " (disabled)"}`}
          </Text>
          <Text dimColor wrap="truncate">{`  ${e.lastError ?? ""}`}</Text>
        </Box>
      ))}
    </Box>
  );
}
