/** tui/source: where the console's data comes from — the store under DATA_DIR (data.ts) and the running server's internal
 * port (live.ts) — behind one object the app is given (tests give it a seeded store and, where they need one, a server). */
import type { Clock } from "../../src/lib/clock";
import type { Store } from "../../src/store/store";
import { loadRender, loadSnapshot, type RenderDetail, type RenderFilter, type Snapshot } from "./data";
import { fetchLive, followLogs, holdQueue, type LogLine } from "./live";

/** Source is everything the screens read, and the drain they ask serve for. */
export interface Source {
  /** Where serve's internal port is asked, named when it does not answer. */
  readonly internalAddress: string;
  snapshot(filter: RenderFilter): Promise<Snapshot>;
  render(renderId: string): Promise<RenderDetail | null>;
  hold(on: boolean): Promise<void>;
  logs(onLine: (line: LogLine) => void, onConnected: () => void): () => void;
}

/** storeSource reads `store` and the internal port at `internalAddress` (host:port). */
export function storeSource(store: Store, clock: Clock, internalAddress: string): Source {
  const url = `http://${internalAddress}`;
  return {
    internalAddress,
    snapshot: async (filter) => loadSnapshot(store, clock, await fetchLive(url), filter),
    render: async (renderId) => loadRender(store, renderId),
    hold: (on) => holdQueue(url, on),
    logs: (onLine, onConnected) => followLogs(url, onLine, onConnected),
  };
}
