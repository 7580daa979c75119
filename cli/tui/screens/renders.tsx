/** tui/screens/renders: the newest renders, live, filtered by workspace and status; `c` cancels the selected one. */
import { Box, Text, useInput } from "ink";
import { useEffect, useState } from "react";
import { ApiError } from "../../../src/errors";
import { RENDER_STATUSES, type RenderStatus } from "../../../src/store/render-status";
import type { RenderFilter } from "../data";
import { editLine, window } from "../edit";
import { ago, cut } from "../format";
import { statusColour, useColour } from "../theme";
import { Thumbnail } from "../thumbnail";
import type { ScreenProps } from "./workspaces";

type Mode = "list" | "workspace" | "confirm";

const VISIBLE = 14;

/** nextStatus cycles the status filter: all, then each status. */
function nextStatus(status: RenderStatus | undefined): RenderStatus | undefined {
  const i = status === undefined ? -1 : RENDER_STATUSES.indexOf(status);
  return RENDER_STATUSES[i + 1];
}

/** Renders is tab 3. */
export function Renders({ snapshot, actions, capture, reload, filter, setFilter }: ScreenProps & { filter: RenderFilter; setFilter(f: RenderFilter): void }) {
  const colour = useColour();
  const [mode, setMode] = useState<Mode>("list");
  const [selected, setSelected] = useState(0);
  const [typed, setTyped] = useState("");
  const [message, setMessage] = useState("");
  useEffect(() => capture(mode !== "list"), [mode, capture]);

  const rows = snapshot.renders;
  const index = Math.min(selected, Math.max(0, rows.length - 1));
  const render = rows[index];

  useInput((input, key) => {
    if (mode === "workspace") {
      if (key.return || key.escape) {
        setFilter({ ...filter, workspace: key.escape ? undefined : typed.trim() || undefined });
        return setMode("list");
      }
      return setTyped(editLine(typed, input, key));
    }
    if (mode === "confirm") {
      setMode("list");
      if (input !== "y" || !render) return;
      actions.cancel(render.workspaceId, render.id).then(
        () => setMessage(`cancelled ${render.id}`),
        (e: unknown) => setMessage(e instanceof ApiError ? e.message : (e as Error).message),
      ).finally(reload);
      return;
    }
    if (key.upArrow) setSelected(Math.max(0, index - 1));
    else if (key.downArrow) setSelected(Math.min(rows.length - 1, index + 1));
    else if (input === "f") setFilter({ ...filter, status: nextStatus(filter.status) });
    else if (input === "w") {
      setTyped(filter.workspace ?? "");
      setMode("workspace");
    } else if (input === "c" && render) {
      setMessage(`Cancel ${render.id} (${render.status})? y confirms, any other key cancels`);
      setMode("confirm");
    }
  });

  const { start, end } = window(rows.length, index, VISIBLE);
  return (
    <Box flexDirection="column">
      <Text>
        {"Workspace: "}
        <Text inverse={mode === "workspace"}>{mode === "workspace" ? typed || " " : filter.workspace ?? "all (w)"}</Text>
        {`   Status: ${filter.status ?? "all"} (f)`}
      </Text>
      <Box>
        <Box flexDirection="column" flexGrow={1}>
          <Text bold>{`${cut("RENDER", 28)} ${cut("WORKSPACE", 14)} ${cut("STATUS", 11)} ${cut("AGE", 5)} ERROR`}</Text>
          {rows.length === 0 ? <Text dimColor>No renders match.</Text> : null}
          {rows.slice(start, end).map((r, i) => (
            <Text key={r.id} inverse={start + i === index} wrap="truncate">
              {`${cut(r.id, 28)} ${cut(r.workspace, 14)} `}
              <Text color={colour(statusColour(r.status))}>{cut(r.status + (r.test ? "*" : ""), 11)}</Text>
              {` ${cut(ago(r.createdAt, snapshot.at), 5)} ${r.errorCode ?? ""}`}
            </Text>
          ))}
        </Box>
        <Thumbnail render={render} />
      </Box>
      {message ? <Text color={colour("yellow")}>{message}</Text> : null}
    </Box>
  );
}
