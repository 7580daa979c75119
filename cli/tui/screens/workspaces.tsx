/** tui/screens/workspaces: every workspace with its allowances and use; suspend/restore, edit allowances, create a key. */
import { Box, Text, useInput } from "ink";
import { useEffect, useState } from "react";
import { ApiError } from "../../../src/errors";
import { ALLOWANCE_FIELDS, type Actions, type AllowanceField } from "../actions";
import type { Snapshot, WorkspaceRow } from "../data";
import { editLine, window } from "../edit";
import { bytes, cut, limit } from "../format";
import { useColour } from "../theme";

type Mode = "list" | "search" | "confirm" | "edit" | "key" | "secret";

// Rows of the list at 80×24: fewer while a form is open below it.
const VISIBLE = 12;
const VISIBLE_WITH_FORM = 4;
const KEY_FIELDS = ["name", "scopes"] as const;

export interface ScreenProps {
  snapshot: Snapshot;
  actions: Actions;
  /** capture tells the app that keys go to a form now (the tab and quit keys are off). */
  capture(on: boolean): void;
  reload(): void;
}

function problem(e: unknown): string {
  if (!(e instanceof ApiError)) return (e as Error).message;
  const detail = e.details?.map((d) => (d.path ? `${d.path.replace(/^\//, "")}: ${d.message}` : d.message)).join("; ");
  return `${e.message}${detail ? ` (${detail})` : ""}`;
}

function formOf(ws: WorkspaceRow): Record<AllowanceField, string> {
  return Object.fromEntries(ALLOWANCE_FIELDS.map((f) => [f, ws[f] === null ? "" : String(ws[f])])) as Record<AllowanceField, string>;
}

/** Workspaces is tab 2. */
export function Workspaces({ snapshot, actions, capture, reload }: ScreenProps) {
  const colour = useColour();
  const [search, setSearch] = useState("");
  const [mode, setMode] = useState<Mode>("list");
  const [selected, setSelected] = useState(0);
  const [form, setForm] = useState<Record<string, string>>({});
  const [field, setField] = useState(0);
  const [message, setMessage] = useState("");
  useEffect(() => capture(mode !== "list"), [mode, capture]);

  const needle = search.toLowerCase();
  const rows = snapshot.workspaces.filter((w) => w.slug.includes(needle) || w.name.toLowerCase().includes(needle));
  const index = Math.min(selected, Math.max(0, rows.length - 1));
  const ws = rows[index];
  const fields: readonly string[] = mode === "key" ? KEY_FIELDS : ALLOWANCE_FIELDS;

  const act = (done: Promise<string>) =>
    done.then(
      (text) => {
        setMessage(text);
        setMode("list");
        reload();
      },
      (e: unknown) => setMessage(problem(e)),
    );

  useInput((input, key) => {
    if (mode === "secret") {
      setMessage("");
      return setMode("list");
    }
    if (mode === "search") {
      if (key.return) return setMode("list");
      if (key.escape) {
        setSearch("");
        return setMode("list");
      }
      setSelected(0);
      return setSearch(editLine(search, input, key));
    }
    if (mode === "confirm") {
      if (input === "y" && ws)
        void act(actions.setSuspended(ws.id, !ws.suspended).then((changed) => (changed ? `${ws.suspended ? "restored" : "suspended"} ${ws.slug}` : `${ws.slug} was already so`)));
      else setMode("list");
      return;
    }
    if (mode === "edit" || mode === "key") {
      if (key.escape) return setMode("list");
      if (key.upArrow) return setField((field + fields.length - 1) % fields.length);
      if (key.downArrow || key.tab) return setField((field + 1) % fields.length);
      if (key.return && ws) {
        if (mode === "edit") return void act(actions.saveAllowances(ws.id, form as Record<AllowanceField, string>, ws.suspended).then(() => `saved the allowances of ${ws.slug}`));
        actions.createKey(ws.id, form.name ?? "", form.scopes ?? "").then(
          (created) => {
            setMessage(`created ${created.id} in ${ws.slug}; its secret, shown once (any key hides it): ${created.secret}`);
            setMode("secret");
            reload();
          },
          (e: unknown) => setMessage(problem(e)),
        );
        return;
      }
      const name = fields[field]!;
      return setForm({ ...form, [name]: editLine(form[name] ?? "", input, key) });
    }
    if (key.upArrow) setSelected(Math.max(0, index - 1));
    else if (key.downArrow) setSelected(Math.min(rows.length - 1, index + 1));
    else if (input === "/") setMode("search");
    else if (!ws) return;
    else if (input === "s") {
      setMessage(`${ws.suspended ? "Restore" : "Suspend"} workspace ${ws.slug}? y confirms, any other key cancels`);
      setMode("confirm");
    } else if (input === "e") {
      setForm(formOf(ws));
      setField(0);
      setMessage("");
      setMode("edit");
    } else if (input === "k") {
      setForm({ name: "", scopes: "render:create,render:read" });
      setField(0);
      setMessage("");
      setMode("key");
    }
  });

  const { start, end } = window(rows.length, index, mode === "edit" || mode === "key" ? VISIBLE_WITH_FORM : VISIBLE);
  return (
    <Box flexDirection="column">
      <Text>
        {"Search: "}
        <Text inverse={mode === "search"}>{search || (mode === "search" ? " " : "(press /)")}</Text>
        <Text dimColor>{`   ${rows.length} of ${snapshot.workspaces.length} workspaces`}</Text>
      </Text>
      <Text bold>{`${cut("SLUG", 16)} ${cut("ACTIVE", 9)} ${cut("PER MIN", 8)} ${cut("DOCS/MONTH", 14)} ${cut("STORAGE", 11)} STATE`}</Text>
      {rows.slice(start, end).map((w, i) => (
        <Text key={w.id} inverse={start + i === index} wrap="truncate">
          {`${cut(w.slug, 16)} ${cut(`${w.activeRenders}/${w.maxActiveRenders}`, 9)} ${cut(String(w.rendersPerMinute), 8)} ${cut(`${w.documentsThisMonth}/${limit(w.documentsPerMonth)}`, 14)} ${cut(bytes(w.storageBytes), 11)} `}
          <Text color={w.suspended ? colour("red") : colour("green")}>{w.suspended ? "suspended" : "active"}</Text>
        </Text>
      ))}
      {mode === "edit" || mode === "key" ? (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>{mode === "edit" ? `Allowances of ${ws?.slug} (empty = unlimited where allowed)` : `New API key in ${ws?.slug} (scopes separated by commas)`}</Text>
          {fields.map((f, i) => (
            <Text key={f}>
              {`${f.padEnd(28)} `}
              <Text inverse={i === field}>{(form[f] ?? "") || " "}</Text>
            </Text>
          ))}
        </Box>
      ) : null}
      {message ? <Text color={colour("yellow")} wrap="wrap">{message}</Text> : null}
    </Box>
  );
}
