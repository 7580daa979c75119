/** tui/screens/renders: the newest renders, live, filtered by workspace and status; Enter opens a render's detail (its
 * timeline, error, warnings, pages, bytes and deliveries); `c` cancels a render that can still be cancelled. */
import { Box, Text, useInput } from "ink";
import { useEffect, useState } from "react";
import { RENDER_STATUSES, type RenderStatus } from "../../../src/store/render-status";
import type { RenderDetail, RenderFilter, RenderRow } from "../data";
import { editLine } from "../edit";
import { ago, bytes, clockTime } from "../format";
import { DETAIL_HINTS, type Hint, LIST_HINTS, useHints } from "../hints";
import { type Column, Detail, type Field, FilterLine, Table, useList } from "../list";
import { statusColour } from "../theme";
import { problem, type ScreenProps } from "./screen";
import { Thumbnail, THUMBNAIL_COLUMNS } from "../thumbnail";

type Mode = "list" | "workspace" | "confirm";

/** nextStatus cycles the status filter: all, then each status. */
function nextStatus(status: RenderStatus | undefined): RenderStatus | undefined {
  const i = status === undefined ? -1 : RENDER_STATUSES.indexOf(status);
  return RENDER_STATUSES[i + 1];
}

/** From this many columns the renders list and a render's detail show its first page (tui/thumbnail.tsx) beside them,
 * THUMBNAIL_WIDTH columns with its frame and margin. */
const WIDE = 120;
const THUMBNAIL_WIDTH = THUMBNAIL_COLUMNS + 4;

/** cancellable tells whether `c` applies: only a render that has not ended can be cancelled. */
const cancellable = (r: RenderRow | undefined): r is RenderRow => r?.status === "queued" || r?.status === "processing";

const errorText = (r: RenderRow) => (r.errorCode ? `${r.errorCode}${r.errorMessage ? `: ${r.errorMessage}` : ""}` : "");

function columns(at: Date): Column<RenderRow>[] {
  return [
    { title: "RENDER", width: 26, text: (r) => r.id },
    { title: "WORKSPACE", width: 12, text: (r) => r.workspace },
    { title: "STATUS", width: 11, text: (r) => r.status + (r.test ? "*" : ""), colour: (r) => statusColour(r.status) },
    { title: "AGE", width: 4, text: (r) => ago(r.createdAt, at) },
    { title: "ERROR", width: 20, fill: true, text: errorText },
  ];
}

/** timeline answers each step of a render with its time and the time since the step before. */
function timeline(r: RenderDetail): string {
  const steps: [string, string | null][] = [
    ["queued", r.createdAt],
    ["claimed", r.claimedAt],
    ["printed", r.printedAt],
    [r.status === "succeeded" ? "stored" : r.status, r.finishedAt],
    ["delivered", r.deliveredAt],
  ];
  let before: string | null = null;
  return steps
    .filter(([, at]) => at)
    .map(([name, at]) => {
      const since: string = before ? ` +${((Date.parse(at!) - Date.parse(before)) / 1000).toFixed(2)}s` : "";
      before = at;
      return `${name} ${clockTime(at)}${since}`;
    })
    .join(" → ");
}

function RenderView({ render }: { render: RenderDetail }) {
  const fields: Field[] = [
    ["Status", `${render.status}${render.test ? " (test render: marked TEST, not counted as a document)" : ""}`, statusColour(render.status)],
    ["Workspace", render.workspace],
    ["Timeline", `${timeline(render)} (UTC)`],
    ["Created", render.createdAt],
  ];
  if (render.errorCode) fields.push(["Error", `${render.errorCode}: ${render.errorMessage ?? ""}`, "red"]);
  for (const [i, w] of render.warnings.entries()) fields.push([i ? "" : "Warnings", `${w.reason}: ${"url" in w ? w.url : `${w.className} at ${w.path}`}`, "yellow"]);
  if (render.pages !== null) fields.push(["Result", `${render.pages} page${render.pages === 1 ? "" : "s"}, ${bytes(render.bytes ?? 0)} (${render.bytes} bytes)`]);
  fields.push(["File", `${render.filename} (${render.source}${render.templateId ? ` ${render.templateId}` : ""})`]);
  if (render.requestId) fields.push(["Request", render.requestId]);
  for (const [i, d] of render.deliveries.entries())
    fields.push([i ? "" : "Deliveries", `${d.kind} ${d.target}: ${d.status} after ${d.attempts} attempt${d.attempts === 1 ? "" : "s"}${d.lastError ? ` (${d.lastError})` : ""}`]);
  return <Detail title={`Render ${render.id}`} fields={fields} />;
}

/** Renders is tab 3. */
export function Renders({ snapshot, source, actions, capture, reload, width, height, say, active, filter, setFilter }: ScreenProps & { filter: RenderFilter; setFilter(f: RenderFilter): void }) {
  const [mode, setMode] = useState<Mode>("list");
  const [typed, setTyped] = useState("");
  const [detail, setDetail] = useState<RenderDetail | null>(null);
  const list = useList(snapshot.renders, (r) => r.id, (r) => `${r.id} ${r.workspace} ${r.status} ${errorText(r)}`, height - 3);
  const opened = list.opened;
  useEffect(() => capture(mode !== "list" || list.filtering), [mode, list.filtering, capture]);
  // The detail is read again with every snapshot while it is open: a render printing moves along its timeline.
  useEffect(() => {
    if (!opened) return setDetail(null);
    let current = true;
    source.render(opened.id).then((d) => current && setDetail(d), (e: Error) => say(problem(e)));
    return () => void (current = false);
  }, [opened?.id, snapshot, source, say]);
  const target = opened ?? list.row;
  const hints: Hint[] = opened ? [...DETAIL_HINTS] : [...LIST_HINTS, { key: "w", short: "workspace", long: "filter by workspace slug (empty: all)" }, { key: "f", short: "status", long: "cycle the status filter" }];
  if (cancellable(target)) hints.push({ key: "c", short: "cancel", long: `cancel ${target.id} (y confirms)` });
  useHints(hints);

  useInput(
    (input, key) => {
      if (mode === "workspace") {
        if (key.return || key.escape) {
          setFilter({ ...filter, workspace: key.escape ? undefined : typed.trim() || undefined });
          return setMode("list");
        }
        return setTyped((text) => editLine(text, input, key));
      }
      if (mode === "confirm") {
        setMode("list");
        if (input !== "y" || !cancellable(target)) return say("not cancelled");
        actions
          .cancel(target.workspaceId, target.id)
          .then(
            () => say(`cancelled ${target.id}`),
            (e: unknown) => say(problem(e)),
          )
          .finally(reload);
        return;
      }
      if (list.handle(input, key)) return;
      if (input === "c" && cancellable(target)) {
        say(`Cancel ${target.id} (${target.status})? y confirms, any other key cancels`);
        setMode("confirm");
      } else if (opened) return;
      else if (input === "f") setFilter({ ...filter, status: nextStatus(filter.status) });
      else if (input === "w") {
        setTyped(filter.workspace ?? "");
        setMode("workspace");
      }
    },
    { isActive: active },
  );

  // The first page beside the list and the detail where the terminal has room for it and for the rows (at 80 columns
  // the rows keep every column whole).
  const wide = width >= WIDE;
  if (opened)
    return detail ? (
      <Box>
        <Box flexDirection="column" flexGrow={1}>
          <RenderView render={detail} />
        </Box>
        {wide ? <Thumbnail render={detail} /> : null}
      </Box>
    ) : (
      <Text dimColor>{`reading ${opened.id}…`}</Text>
    );
  const workspace = mode === "workspace" ? typed || " " : (filter.workspace ?? "all (w)");
  return (
    <Box flexDirection="column">
      <FilterLine
        list={list}
        noun="renders"
        extra={
          <Text>
            {"   Workspace: "}
            <Text inverse={mode === "workspace"}>{workspace}</Text>
            {`   Status: ${filter.status ?? "all"} (f)`}
          </Text>
        }
      />
      <Box>
        <Box flexDirection="column" flexGrow={1}>
          <Table list={list} columns={columns(snapshot.at)} width={wide ? width - THUMBNAIL_WIDTH : width} height={height - 2} id={(r) => r.id} empty="No renders match." />
        </Box>
        {wide ? <Thumbnail render={list.row} /> : null}
      </Box>
      <Text dimColor>* test render</Text>
    </Box>
  );
}
