/** tui/screens/overview: throughput, the queue, wait and print times, the pool, webhooks and recent failures. */
import { Box, Text } from "ink";
import type { Refusal, SpaceStatus } from "../../../src/store/space";
import type { Snapshot } from "../data";
import { ago, bytes, cut, seconds, sparkline } from "../format";
import { statusColour, useColour } from "../theme";

const REFUSED_BECAUSE: Record<Refusal, (minimum: string) => string> = {
  low: (minimum) => `under ${minimum}`,
  full: () => "writes fail (disk full)",
  read_only: () => "store read-only",
  io_error: () => "writes fail (I/O)",
};

/** Disk is DATA_DIR's free space, and why serve refuses new renders and uploads when it does (store/space.ts). */
function Disk({ storage }: { storage: SpaceStatus }) {
  const colour = useColour();
  const free = `DATA_DIR: ${bytes(storage.freeBytes)} free`;
  const minimum = bytes(storage.minFreeBytes);
  if (!storage.refusing) return <Text>{`${free} (new renders and uploads refused under ${minimum})`}</Text>;
  return <Text color={colour("red")}>{`${free}, ${REFUSED_BECAUSE[storage.refusing](minimum)}: new renders and uploads refused`}</Text>;
}

/** Overview is tab 1. */
export function Overview({ snapshot }: { snapshot: Snapshot }) {
  const colour = useColour();
  const { overview: o, live, at } = snapshot;
  const total = o.perMinute.reduce((a, b) => a + b, 0);
  return (
    <Box flexDirection="column">
      <Text bold>Renders per minute, last hour ({total} finished)</Text>
      <Text color={colour("cyan")}>{sparkline(o.perMinute)}</Text>
      <Text>
        Queue: {(["queued", "processing"] as const).map((s) => (
          <Text key={s} color={colour(statusColour(s))}>{`${s} ${o.queue[s]}  `}</Text>
        ))}
        <Text dimColor>{`last hour: ${o.queue.succeeded} succeeded, ${o.queue.failed} failed, ${o.queue.cancelled} cancelled`}</Text>
      </Text>
      <Text>{`Last 5 min   queue wait p50 ${seconds(o.queueWait.p50)} p95 ${seconds(o.queueWait.p95)}   render p50 ${seconds(o.renderTime.p50)} p95 ${seconds(o.renderTime.p95)}`}</Text>
      {live ? (
        <Text>{`Pool: ${live.pool.busy} busy, ${live.pool.idle} idle, ${live.pool.recycling} recycling of ${live.pool.size}   browser restarts ${live.pool.browserRestarts}`}</Text>
      ) : (
        <Text dimColor>Pool: - (serve is not running)</Text>
      )}
      {live ? <Disk storage={live.storage} /> : <Text dimColor>DATA_DIR: - (serve is not running)</Text>}
      <Text>
        {`Webhooks: backlog ${o.webhookBacklog}, `}
        <Text color={o.failingEndpoints ? colour("red") : undefined}>{`${o.failingEndpoints} failing endpoint${o.failingEndpoints === 1 ? "" : "s"}`}</Text>
      </Text>
      <Box marginTop={1} flexDirection="column">
        <Text bold>Recent failures</Text>
        {o.recentFailures.length === 0 ? <Text dimColor>none</Text> : null}
        {o.recentFailures.map((f) => (
          <Text key={f.id} wrap="truncate">
            <Text color={colour("red")}>{cut(f.code, 16)}</Text>
            {` ${cut(f.workspace, 14)} ${f.id}  ${ago(f.finishedAt, at)} ago`}
          </Text>
        ))}
      </Box>
    </Box>
  );
}
