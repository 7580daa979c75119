/** tui/app: the tabs, the keys every tab shares and the status line; data comes from useSnapshot, changes from Actions. */
import { Box, Text, useApp, useInput } from "ink";
import { useCallback, useState } from "react";
import type { Actions } from "./actions";
import type { RenderFilter, Snapshot } from "./data";
import { ago } from "./format";
import { Help } from "./screens/help";
import { Overview } from "./screens/overview";
import { Renders } from "./screens/renders";
import { Webhooks } from "./screens/webhooks";
import { Workspaces } from "./screens/workspaces";
import { ColourProvider, useColour } from "./theme";
import { useSnapshot } from "./use-snapshot";

/** TABS in the order of their number keys (issue 12). */
export const TABS = ["Overview", "Workspaces", "Renders", "Webhooks"] as const;

export interface AppProps {
  load(filter: RenderFilter): Promise<Snapshot>;
  actions: Actions;
  /** Where the live state is asked for, named when serve does not answer. */
  internalAddress: string;
  refreshMs?: number;
  colour?: boolean;
  initialTab?: number;
}

function StatusLine({ snapshot, internalAddress }: { snapshot: Snapshot | null; internalAddress: string }) {
  const colour = useColour();
  if (!snapshot) return <Text dimColor>loading…</Text>;
  const live = snapshot.live;
  if (!live) return <Text color={colour("red")} wrap="truncate">{`serve is not running (nothing answers on ${internalAddress}); showing the store`}</Text>;
  return (
    <Text color={live.draining ? colour("yellow") : colour("green")} wrap="truncate">
      {`serve ${live.draining ? "is draining (SIGTERM)" : "running"}: pid ${live.pid}, v${live.version}, up ${ago(live.startedAt, snapshot.at)}, ${live.inFlight.length} printing`}
    </Text>
  );
}

function Console({ load, actions, internalAddress, refreshMs = 1000, initialTab = 0 }: AppProps) {
  const { exit } = useApp();
  const [tab, setTab] = useState(initialTab);
  const [help, setHelp] = useState(false);
  const [captured, setCaptured] = useState(false);
  const [filter, setFilter] = useState<RenderFilter>({});
  const { value: snapshot, error, reload } = useSnapshot(() => load(filter), refreshMs);
  const capture = useCallback((on: boolean) => setCaptured(on), []);
  const changeFilter = (f: RenderFilter) => {
    setFilter(f);
    setTimeout(reload, 0);
  };

  useInput((input, key) => {
    if (captured) return;
    if (input === "q") return exit();
    if (input === "?") return setHelp(!help);
    const n = Number(input);
    if (Number.isInteger(n) && n >= 1 && n <= TABS.length) {
      setHelp(false);
      return setTab(n - 1);
    }
    if (key.tab) {
      setHelp(false);
      setTab((tab + (key.shift ? TABS.length - 1 : 1)) % TABS.length);
    }
  });

  const screen = (() => {
    if (help) return <Help />;
    if (!snapshot) return <Text dimColor>reading the store…</Text>;
    const props = { snapshot, actions, capture, reload };
    if (tab === 0) return <Overview snapshot={snapshot} />;
    if (tab === 1) return <Workspaces {...props} />;
    if (tab === 2) return <Renders {...props} filter={filter} setFilter={changeFilter} />;
    return <Webhooks snapshot={snapshot} />;
  })();

  return (
    <Box flexDirection="column">
      <Box>
        <Text bold>renderd </Text>
        {TABS.map((name, i) => (
          <Text key={name} inverse={i === tab && !help}>{` ${i + 1} ${name} `}</Text>
        ))}
        <Text dimColor> ? keys  q quit</Text>
      </Box>
      <StatusLine snapshot={snapshot} internalAddress={internalAddress} />
      {error ? <Text wrap="truncate">{`could not read the store: ${error}`}</Text> : null}
      <Box marginTop={1} flexDirection="column">
        {screen}
      </Box>
    </Box>
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
