/** tui/screens/webhooks: endpoints whose deliveries are failing, with the next attempt's time; Enter opens one. */
import { Box } from "ink";
import type { EndpointRow } from "../data";
import { clockTime } from "../format";
import { type Column, Detail, FilterLine, Table, useBrowse } from "../list";
import type { ScreenProps } from "./screen";

const COLUMNS: Column<EndpointRow>[] = [
  { title: "WORKSPACE", width: 12, text: (e) => e.workspace },
  { title: "URL", width: 24, fill: true, text: (e) => e.url },
  { title: "PEND", width: 5, text: (e) => String(e.pending) },
  { title: "FAIL", width: 5, text: (e) => String(e.failed), colour: (e) => (e.failed ? "red" : undefined) },
  { title: "NEXT (UTC)", width: 10, text: (e) => clockTime(e.nextAttemptAt) + (e.enabled ? "" : " (off)") },
  { title: "LAST ERROR", width: 17, text: (e) => e.lastError ?? "" },
];

/** Webhooks is tab 4. */
export function Webhooks({ snapshot, capture, width, height, active }: ScreenProps) {
  const list = useBrowse(snapshot.endpoints, (e) => e.id, (e) => `${e.workspace} ${e.url} ${e.lastError ?? ""}`, { height, active, capture });
  const e = list.opened;
  if (e)
    return (
      <Detail
        title={`Webhook endpoint ${e.id}`}
        fields={[
          ["Workspace", e.workspace],
          ["URL", e.url],
          ["State", e.enabled ? "enabled" : "disabled: its deliveries fail unsent", e.enabled ? "green" : "red"],
          ["Pending", `${e.pending} deliveries waiting to be sent or retried`],
          ["Failed", `${e.failed} deliveries failed for good (the last hour's)`, e.failed ? "red" : undefined],
          ["Next attempt", e.nextAttemptAt ?? "-"],
          ["Last error", e.lastError ?? "-", "red"],
        ]}
      />
    );
  return (
    <Box flexDirection="column">
      <FilterLine list={list} noun="endpoints with failing deliveries" />
      <Table list={list} columns={COLUMNS} width={width} height={height - 1} id={(row) => row.id} empty="No endpoint has failing deliveries." />
    </Box>
  );
}
