/** cli/tui: `renderd tui` — the operator's console in the terminal, beside `renderd serve` on the same host. */
import { Command } from "commander";
import { ensureDataDir, loadConfig } from "../src/config";
import { systemClock } from "../src/lib/clock";
import { openMigratedStore } from "../src/store/open";
import { guard } from "./context";

interface Flags {
  dataDir?: string;
  internalPort?: string;
}

/** tuiCommand builds `renderd tui`. */
export function tuiCommand(): Command {
  return new Command("tui")
    .description("operator console: queue, pool, workspaces, renders and webhooks, live (needs a terminal)")
    .option("--data-dir <dir>", "data folder holding renderd.db [env DATA_DIR, default ./data]")
    .option("--internal-port <port>", "internal port of the running serve, for its live state [env INTERNAL_PORT, default 8081]")
    .addHelpText("after", "\nReads the store under DATA_DIR (works while serve is down) and serve's live state from 127.0.0.1:INTERNAL_PORT.\nChanges are audited as system/cli. Keys: press ? in the console.")
    .action(
      guard(async (flags: Flags) => {
        if (!process.stdin.isTTY || !process.stdout.isTTY) {
          process.stderr.write("renderd: tui needs a terminal: run it in an interactive shell, not with piped input or output.\n");
          process.exit(2);
        }
        const config = loadConfig(process.env, { dataDir: flags.dataDir, internalPort: flags.internalPort });
        ensureDataDir(config);
        const { store } = await openMigratedStore(config, systemClock);
        try {
          // Loaded here so the other commands do not pay for React and Ink at start-up.
          const { runTui } = await import("./tui/run");
          await runTui(store, systemClock, config);
        } finally {
          await store.close();
        }
      }),
    );
}
