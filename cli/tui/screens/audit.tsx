/** tui/screens/audit: the newest audit events of every workspace; Enter opens one with its metadata. */
import { Box } from "ink";
import type { AuditRow } from "../data";
import { type Column, Detail, FilterLine, Table, useBrowse } from "../list";
import type { ScreenProps } from "./screen";

const actorOf = (e: AuditRow) => (e.actorType === "system" ? `system/${e.actorId}` : (e.actorEmail ?? e.actorName ?? e.actorId));
const targetOf = (e: AuditRow) => `${e.resourceName ?? e.resourceId}${e.resourceDeleted ? " (deleted)" : ""}`;

const COLUMNS: Column<AuditRow>[] = [
  { title: "TIME (UTC)", width: 14, text: (e) => `${e.createdAt.slice(5, 10)} ${e.createdAt.slice(11, 19)}` },
  { title: "WORKSPACE", width: 10, text: (e) => e.workspace },
  { title: "ACTOR", width: 17, text: actorOf },
  { title: "ACTION", width: 24, text: (e) => e.action },
  { title: "TARGET", width: 10, fill: true, text: targetOf },
];

/** Audit is tab 6. */
export function Audit({ snapshot, capture, width, height, active }: ScreenProps) {
  const list = useBrowse(snapshot.audit, (e) => e.id, (e) => `${e.workspace} ${actorOf(e)} ${e.action} ${targetOf(e)} ${e.resourceId}`, { height, active, capture });
  const e = list.opened;
  if (e)
    return (
      <Detail
        title={`Audit event ${e.id}`}
        fields={[
          ["Time", e.createdAt],
          ["Workspace", e.workspace],
          ["Actor", `${e.actorType} ${e.actorId}${e.actorName ? ` (${e.actorName})` : ""}${e.actorEmail ? ` <${e.actorEmail}>` : ""}`],
          ["Action", e.action],
          ["Resource", `${e.resourceType} ${e.resourceId}${e.resourceName ? ` (${e.resourceName})` : ""}${e.resourceDeleted ? ", deleted" : ""}`],
          ["Request", e.requestId],
          ["Metadata", JSON.stringify(e.metadata)],
        ]}
      />
    );
  return (
    <Box flexDirection="column">
      <FilterLine list={list} noun="newest events" />
      <Table list={list} columns={COLUMNS} width={width} height={height - 1} id={(row) => row.id} empty="No audit event yet." />
    </Box>
  );
}
