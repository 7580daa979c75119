/** tui/run: mounts the console on the terminal (alternate screen, so the shell is left as it was) until `q` or Ctrl-C. */
import { render } from "ink";
import type { Config } from "../../src/config";
import type { Clock } from "../../src/lib/clock";
import type { Store } from "../../src/store/store";
import { Actions } from "./actions";
import { App } from "./app";
import { storeSource } from "./source";
import { ThumbnailFiles } from "./thumbnail";
import { openSpooledFiles } from "../../src/store/open-files";

/** runTui shows the console for the store and the server of `config`, and resolves when the operator quits. */
export async function runTui(store: Store, clock: Clock, config: Config): Promise<void> {
  const app = render(
    <ThumbnailFiles.Provider value={openSpooledFiles(config, store, clock)}>
      <App source={storeSource(store, clock, `127.0.0.1:${config.internalPort}`)} actions={new Actions(store, clock, config)} colour={!process.env.NO_COLOR} />
    </ThumbnailFiles.Provider>,
    { alternateScreen: true, interactive: true, exitOnCtrlC: true, patchConsole: true },
  );
  await app.waitUntilExit();
}
