/** tui/app: the tabs, the keys every tab shares (tabs, help, drain, quit), the status line, the message line and the
 * footer of the current screen's keys; data comes from the Source, changes from Actions. */
import { Box, Text, useApp, useInput, useWindowSize } from "ink";
import { useCallback, useState } from "react";
import type { Actions } from "./actions";
import type { RenderFilter, Snapshot } from "./data";
import { ago } from "./format";
import { type Hint, HintsProvider } from "./hints";
import { Audit } from "./screens/audit";
import { Help } from "./screens/help";
import { Keys } from "./screens/keys";
import { Logs } from "./screens/logs";
import { Overview } from "./screens/overview";
import { Renders } from "./screens/renders";
import type { ScreenProps } from "./screens/screen";
import { Webhooks } from "./screens/webhooks";
import { Workspaces } from "./screens/workspaces";
import type { Source } from "./source";
import { ColourProvider, useColour } from "./theme";
import { useSnapshot } from "./use-snapshot";

/** TABS in the order of their number keys. */
export const TABS = ["Overview", "Workspaces", "Renders", "Webhooks", "Keys", "Audit", "Logs"] as const;

// Lines around a screen: tabs, status, a blank line and the footer; the message line (at least one) comes on top.
const CHROME_LINES = 4;

export interface AppProps {
  source: Source;
  actions: Actions;
  refreshMs?: number;
  colour?: boolean;
  initialTab?: number;
  /** The terminal's size; read from the terminal (and its resizes) when absent. */
  size?: { columns: number; rows: number };
}

/** globalHints are the keys that work on every screen; the drain's key is offered only where it applies. */
function globalHints(snapshot: Snapshot | null): Hint[] {
  const live = snapshot?.live;
  const hints: Hint[] = [{ key: "1-7", short: "", long: "switch tab (Tab and Shift-Tab move too)" }];
  if (live && !live.draining && !live.paused) hints.push({ key: "d", short: "drain", long: "drain serve: it accepts renders but claims none until u (y confirms)" });
  if (live?.paused) hints.push({ key: "u", short: "resume", long: "let serve claim renders again" });
  hints.push({ key: "?", short: "keys", long: "show or hide every key of this screen" }, { key: "q", short: "quit", long: "quit (Ctrl-C too)" });
  return hints;
}

function StatusLine({ snapshot, internalAddress }: { snapshot: Snapshot | null; internalAddress: string }) {
  const colour = useColour();
  if (!snapshot) return <Text dimColor>loading…</Text>;
  const live = snapshot.live;
  if (!live) return <Text color={colour("red")} wrap="truncate">{`serve is not running (nothing answers on ${internalAddress}); showing the store`}</Text>;
  const printing = `${live.inFlight.length} printing`;
  const state = live.draining ? "is draining (SIGTERM)" : live.paused ? `${live.inFlight.length ? "draining" : "drained"} (u resumes)` : "running";
  return (
    <Text color={live.draining || live.paused ? colour("yellow") : colour("green")} wrap="truncate">
      {`serve ${state}: pid ${live.pid}, v${live.version}, up ${ago(live.startedAt, snapshot.at)}, ${printing}`}
    </Text>
  );
}

/** footerText answers the current screen's keys, then the global ones, as short as they go; on a narrow terminal the
 * screen's last keys give way first (`?` lists them all), so `? keys` and `q quit` always show. */
export function footerText(screen: Hint[], global: Hint[], columns: number): string {
  const words = (hints: Hint[]) => hints.filter((h) => h.short).map((h) => `${h.key} ${h.short}`);
  const own = words(screen);
  const always = words(global);
  while (own.length && [...own, ...always].join("  ").length > columns) own.pop();
  return [...own, ...always].join("  ");
}

function Console({ source, actions, refreshMs = 1000, initialTab = 0, size }: AppProps) {
  const { exit } = useApp();
  const terminal = useWindowSize();
  const { columns, rows } = size ?? terminal;
  const [tab, setTab] = useState(initialTab);
  const [help, setHelp] = useState(false);
  const [captured, setCaptured] = useState(false);
  const [confirmDrain, setConfirmDrain] = useState(false);
  const [message, setMessage] = useState("");
  const [filter, setFilter] = useState<RenderFilter>({});
  const [screenHints, setScreenHints] = useState<Hint[]>([]);
  const { value: snapshot, error, reload } = useSnapshot(() => source.snapshot(filter), refreshMs);
  const capture = useCallback((on: boolean) => setCaptured(on), []);
  const changeFilter = (f: RenderFilter) => {
    setFilter(f);
    setTimeout(reload, 0);
  };
  const global = globalHints(snapshot);
  const hold = (on: boolean) => {
    source
      .hold(on)
      .then(() => setMessage(on ? "drain asked: serve claims no renders; those printing finish (u resumes)" : "resumed: serve claims renders again"))
      .catch((e: Error) => setMessage(`serve did not answer: ${e.message}`))
      .finally(reload);
  };

  useInput((input, key) => {
    if (confirmDrain) {
      setConfirmDrain(false);
      if (input === "y") hold(true);
      else setMessage("drain not asked");
      return;
    }
    if (captured) return;
    if (input === "q") return exit();
    if (input === "?") return setHelp(!help);
    if (help && key.escape) return setHelp(false);
    if (input === "d" && global.some((h) => h.key === "d")) {
      setMessage("Drain serve? It accepts renders, claims none until u. y confirms, else cancels");
      return setConfirmDrain(true);
    }
    if (input === "u" && global.some((h) => h.key === "u")) return hold(false);
    const n = Number(input);
    if (Number.isInteger(n) && n >= 1 && n <= TABS.length) {
      setHelp(false);
      setMessage("");
      return setTab(n - 1);
    }
    if (key.tab) {
      setHelp(false);
      setMessage("");
      setTab((tab + (key.shift ? TABS.length - 1 : 1)) % TABS.length);
    }
  });

  const shown = error ? `could not read the store: ${error}` : message;
  // A long message (a refusal naming its fields) wraps rather than being cut; the screen gives up those lines.
  const messageLines = Math.max(1, Math.ceil(shown.length / columns));
  const height = Math.max(6, rows - CHROME_LINES - messageLines);
  const screen = (() => {
    if (!snapshot) return <Text dimColor>reading the store…</Text>;
    const props: ScreenProps = { snapshot, source, actions, capture, reload, width: columns, height, say: setMessage, active: !help && !confirmDrain };
    if (tab === 0) return <Overview {...props} />;
    if (tab === 1) return <Workspaces {...props} />;
    if (tab === 2) return <Renders {...props} filter={filter} setFilter={changeFilter} />;
    if (tab === 3) return <Webhooks {...props} />;
    if (tab === 4) return <Keys {...props} />;
    if (tab === 5) return <Audit {...props} />;
    return <Logs {...props} />;
  })();
  const wide = columns >= 100;

  return (
    <HintsProvider value={setScreenHints}>
      <Box flexDirection="column" width={columns}>
        <Text wrap="truncate">
          {wide ? <Text bold>renderd </Text> : null}
          {TABS.map((name, i) => (
            <Text key={name} inverse={i === tab && !help}>{` ${i + 1} ${name} `}</Text>
          ))}
        </Text>
        <StatusLine snapshot={snapshot} internalAddress={source.internalAddress} />
        <Box marginTop={1} flexDirection="column" height={height}>
          {/* The screen stays mounted under the help, so its filter and selection are there when help closes. */}
          <Box display={help ? "none" : "flex"} flexDirection="column">
            {screen}
          </Box>
          {help ? <Help tab={TABS[tab]!} screen={screenHints} global={global} /> : null}
        </Box>
        <Text color={useColour()("yellow")} wrap="wrap">
          {shown || " "}
        </Text>
        <Text dimColor wrap="truncate">
          {footerText(screenHints, global, columns)}
        </Text>
      </Box>
    </HintsProvider>
  );
}

/** App is the whole console; `colour` false honours NO_COLOR. */
export function App(props: AppProps) {
  return (
    <ColourProvider value={props.colour ?? true}>
      <Console {...props} />
    </ColourProvider>
  );
}
