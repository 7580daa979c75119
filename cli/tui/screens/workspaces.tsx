/** tui/screens/workspaces: every workspace with its allowances and use; Enter opens one; suspend/restore, edit
 * allowances, create a key — on the list and in the detail. */
import { Box, Text, useInput } from "ink";
import { useEffect, useState } from "react";
import { ALLOWANCE_FIELDS, type AllowanceField } from "../actions";
import type { WorkspaceRow } from "../data";
import { editLine } from "../edit";
import { bytes, limit } from "../format";
import { DETAIL_HINTS, type Hint, LIST_HINTS, useHints } from "../hints";
import { type Column, Detail, FilterLine, Table, useList } from "../list";
import { problem, type ScreenProps } from "./screen";

type Mode = "list" | "confirm" | "edit" | "key" | "secret";

const KEY_FIELDS = ["name", "scopes"] as const;

const COLUMNS: Column<WorkspaceRow>[] = [
  { title: "SLUG", width: 16, fill: true, text: (w) => w.slug },
  { title: "ACTIVE", width: 9, text: (w) => `${w.activeRenders}/${w.maxActiveRenders}` },
  { title: "PER MIN", width: 8, text: (w) => String(w.rendersPerMinute) },
  { title: "DOCS/MONTH", width: 14, text: (w) => `${w.documentsThisMonth}/${limit(w.documentsPerMonth)}` },
  { title: "STORAGE", width: 11, text: (w) => bytes(w.storageBytes) },
  { title: "STATE", width: 9, text: (w) => (w.suspended ? "suspended" : "active"), colour: (w) => (w.suspended ? "red" : "green") },
];

function formOf(ws: WorkspaceRow): Record<AllowanceField, string> {
  return Object.fromEntries(ALLOWANCE_FIELDS.map((f) => [f, ws[f] === null ? "" : String(ws[f])])) as Record<AllowanceField, string>;
}

function WorkspaceView({ ws }: { ws: WorkspaceRow }) {
  return (
    <Detail
      title={`Workspace ${ws.slug} (${ws.id})`}
      fields={[
        ["Name", ws.name],
        ["State", ws.suspended ? "suspended: renders nothing, its keys are refused" : "active", ws.suspended ? "red" : "green"],
        ["Active renders", `${ws.activeRenders} of maxActiveRenders ${ws.maxActiveRenders}`],
        ["Per minute", `rendersPerMinute ${ws.rendersPerMinute}`],
        ["Documents", `${ws.documentsThisMonth} this month of documentsPerMonth ${limit(ws.documentsPerMonth)}`],
        ["Storage", `${bytes(ws.storageBytes)} of maxStorageBytes ${ws.maxStorageBytes === null ? "∞" : bytes(ws.maxStorageBytes)}`],
        ["Test renders", `testRendersPerDay ${limit(ws.testRendersPerDay)}`],
        ["Conversions", `templateConversionsPerMonth ${limit(ws.templateConversionsPerMonth)}`],
        ["Created", ws.createdAt],
      ]}
    />
  );
}

/** Workspaces is tab 2. */
export function Workspaces({ snapshot, actions, capture, reload, width, height, say, active }: ScreenProps) {
  const [mode, setMode] = useState<Mode>("list");
  const [form, setForm] = useState<Record<string, string>>({});
  const [field, setField] = useState(0);
  const [secret, setSecret] = useState("");
  const fields: readonly string[] = mode === "key" ? KEY_FIELDS : ALLOWANCE_FIELDS;
  const formLines = mode === "edit" || mode === "key" ? fields.length + 2 : mode === "secret" ? 3 : 0;
  const list = useList(snapshot.workspaces, (w) => w.id, (w) => `${w.slug} ${w.name}`, height - formLines - 3);
  const ws = list.opened ?? list.row;
  useEffect(() => capture(mode !== "list" || list.filtering), [mode, list.filtering, capture]);
  const actionHints: Hint[] = ws
    ? [
        { key: "s", short: ws.suspended ? "restore" : "suspend", long: `${ws.suspended ? "restore" : "suspend"} ${ws.slug} (y confirms)` },
        { key: "e", short: "edit", long: "edit the allowances (↑↓ field, Enter saves, Esc)" },
        { key: "k", short: "new key", long: "create an API key in it (its secret is shown once)" },
      ]
    : [];
  useHints([...(list.opened ? DETAIL_HINTS : LIST_HINTS), ...actionHints]);

  const act = (done: Promise<string>) =>
    void done.then(
      (text) => {
        say(text);
        setMode("list");
        reload();
      },
      (e: unknown) => say(problem(e)),
    );

  useInput(
    (input, key) => {
      if (mode === "secret") {
        setSecret("");
        say("");
        return setMode("list");
      }
      if (mode === "confirm") {
        if (input === "y" && ws) act(actions.setSuspended(ws.id, !ws.suspended).then((changed) => (changed ? `${ws.suspended ? "restored" : "suspended"} ${ws.slug}` : `${ws.slug} was already so`)));
        else {
          say("nothing changed");
          setMode("list");
        }
        return;
      }
      if (mode === "edit" || mode === "key") {
        if (key.escape) return setMode("list");
        if (key.upArrow) return setField((field + fields.length - 1) % fields.length);
        if (key.downArrow || key.tab) return setField((field + 1) % fields.length);
        if (key.return && ws) {
          if (mode === "edit") return act(actions.saveAllowances(ws.id, form as Record<AllowanceField, string>, ws.suspended).then(() => `saved the allowances of ${ws.slug}`));
          actions.createKey(ws.id, form.name ?? "", form.scopes ?? "").then(
            (created) => {
              say(`created ${created.id} in ${ws.slug}`);
              setSecret(created.secret);
              setMode("secret");
              reload();
            },
            (e: unknown) => say(problem(e)),
          );
          return;
        }
        const name = fields[field]!;
        return setForm((typed) => ({ ...typed, [name]: editLine(typed[name] ?? "", input, key) }));
      }
      if (list.handle(input, key) || !ws) return;
      if (input === "s") {
        say(`${ws.suspended ? "Restore" : "Suspend"} workspace ${ws.slug}? y confirms, any other key cancels`);
        setMode("confirm");
      } else if (input === "e") {
        setForm(formOf(ws));
        setField(0);
        say("");
        setMode("edit");
      } else if (input === "k") {
        setForm({ name: "", scopes: "render:create,render:read" });
        setField(0);
        say("");
        setMode("key");
      }
    },
    { isActive: active },
  );

  return (
    <Box flexDirection="column">
      {list.opened ? (
        <WorkspaceView ws={list.opened} />
      ) : (
        <>
          <FilterLine list={list} noun="workspaces" />
          <Table list={list} columns={COLUMNS} width={width} height={height - formLines - 1} id={(w) => w.id} empty="No workspace matches." />
        </>
      )}
      {mode === "edit" || mode === "key" ? (
        <Box flexDirection="column" marginTop={1}>
          <Text bold wrap="truncate">{mode === "edit" ? `Allowances of ${ws?.slug} (empty = unlimited where allowed)` : `New API key in ${ws?.slug} (scopes separated by commas)`}</Text>
          {fields.map((f, i) => (
            <Text key={f} wrap="truncate">
              {`${f.padEnd(28)} `}
              <Text inverse={i === field}>{(form[f] ?? "") || " "}</Text>
            </Text>
          ))}
        </Box>
      ) : null}
      {mode === "secret" ? (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>The key's secret, shown once (any key hides it):</Text>
          <Text>{secret}</Text>
        </Box>
      ) : null}
    </Box>
  );
}
