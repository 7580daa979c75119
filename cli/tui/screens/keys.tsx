/** tui/screens/keys: every workspace's API keys — name, scopes, last use, expiry; Enter opens one; `x` revokes an
 * active key after `y`, audited as `renderd keys revoke` is. */
import { Box, useInput } from "ink";
import { useEffect, useState } from "react";
import type { KeyRow } from "../data";
import { ago } from "../format";
import { DETAIL_HINTS, type Hint, LIST_HINTS, useHints } from "../hints";
import { type Column, Detail, FilterLine, Table, useList } from "../list";
import type { Colour } from "../theme";
import { problem, type ScreenProps } from "./screen";

/** stateOf answers a key's state at `now`: active, expired or revoked (as `renderd keys list` says). */
function stateOf(k: KeyRow, now: Date): "active" | "expired" | "revoked" {
  if (!k.enabled) return "revoked";
  return k.expiresAt && Date.parse(k.expiresAt) <= now.getTime() ? "expired" : "active";
}

const STATE_COLOUR: Record<ReturnType<typeof stateOf>, Colour> = { active: "green", expired: "yellow", revoked: "gray" };

function columns(now: Date): Column<KeyRow>[] {
  return [
    { title: "WORKSPACE", width: 10, text: (k) => k.workspace },
    { title: "NAME", width: 14, text: (k) => k.name },
    { title: "STATE", width: 7, text: (k) => stateOf(k, now), colour: (k) => STATE_COLOUR[stateOf(k, now)] },
    { title: "LAST USED", width: 9, text: (k) => (k.lastUsedAt ? `${ago(k.lastUsedAt, now)} ago` : "never") },
    { title: "EXPIRES", width: 10, text: (k) => k.expiresAt?.slice(0, 10) ?? "never" },
    { title: "SCOPES", width: 24, fill: true, text: (k) => k.scopes.join(",") },
  ];
}

/** Keys is tab 5. */
export function Keys({ snapshot, actions, capture, reload, width, height, say, active }: ScreenProps) {
  const [confirm, setConfirm] = useState(false);
  const list = useList(snapshot.keys, (k) => k.id, (k) => `${k.workspace} ${k.name} ${k.id} ${k.start} ${k.scopes.join(" ")}`, height - 3);
  const key = list.opened ?? list.row;
  const revocable = key !== undefined && stateOf(key, snapshot.at) !== "revoked";
  useEffect(() => capture(confirm || list.filtering), [confirm, list.filtering, capture]);
  const hints: Hint[] = list.opened ? [...DETAIL_HINTS] : [...LIST_HINTS];
  if (revocable) hints.push({ key: "x", short: "revoke", long: "revoke the selected key for good (y confirms)" });
  useHints(hints);

  useInput(
    (input, k) => {
      if (confirm) {
        setConfirm(false);
        if (input !== "y" || !revocable) return say("not revoked");
        actions
          .revokeKey(key.workspaceId, key.id)
          .then(
            () => say(`revoked API key ${key.id} in workspace ${key.workspace}`),
            (e: unknown) => say(problem(e)),
          )
          .finally(reload);
        return;
      }
      if (list.handle(input, k)) return;
      if (input === "x" && revocable) {
        say(`Revoke ${key.name} (${key.id}) of ${key.workspace}? It stops working at once. y confirms, any other key cancels`);
        setConfirm(true);
      }
    },
    { isActive: active },
  );

  const k = list.opened;
  if (k)
    return (
      <Detail
        title={`API key ${k.id}`}
        fields={[
          ["Workspace", k.workspace],
          ["Name", k.name],
          ["State", stateOf(k, snapshot.at), STATE_COLOUR[stateOf(k, snapshot.at)]],
          ["Starts with", `${k.start}… (prefix ${k.prefix})`],
          ["Scopes", k.scopes.join(", ")],
          ["Created", k.createdAt],
          ["Last used", k.lastUsedAt ?? "never"],
          ["Expires", k.expiresAt ?? "never"],
        ]}
      />
    );
  return (
    <Box flexDirection="column">
      <FilterLine list={list} noun="API keys" />
      <Table list={list} columns={columns(snapshot.at)} width={width} height={height - 1} id={(row) => row.id} empty="No API key matches." />
    </Box>
  );
}
